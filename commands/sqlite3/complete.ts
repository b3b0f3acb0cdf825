/**
 * sqlite3_complete() and the statement boundaries it implies: a text is complete when it ends
 * with a semicolon outside strings, quoted names, comments and CREATE TRIGGER bodies.
 */
const SEMI = 0, WS = 1, OTHER = 2, EXPLAIN = 3, CREATE = 4, TEMP = 5, TRIGGER = 6, END = 7;

const TRANS: readonly (readonly number[])[] = [
  [1, 0, 2, 3, 4, 2, 2, 2],
  [1, 1, 2, 3, 4, 2, 2, 2],
  [1, 2, 2, 2, 2, 2, 2, 2],
  [1, 3, 3, 2, 4, 2, 2, 2],
  [1, 4, 2, 2, 2, 4, 5, 2],
  [6, 5, 5, 5, 5, 5, 5, 5],
  [6, 6, 5, 5, 5, 5, 5, 7],
  [1, 7, 5, 5, 5, 5, 5, 5],
];

interface Token { kind: number; start: number; end: number }

/** Tokens as sqlite3_complete sees them; null when a string or comment is not closed. */
function* tokens(sql: string): Generator<Token, boolean> {
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    const start = i;
    if (c === ';') { i++; yield { kind: SEMI, start, end: i }; continue; }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') { i++; yield { kind: WS, start, end: i }; continue; }
    if (c === '/' && sql[i + 1] === '*') {
      const e = sql.indexOf('*/', i + 2);
      if (e < 0) return false;
      i = e + 2;
      yield { kind: WS, start, end: i };
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      const e = sql.indexOf('\n', i);
      i = e < 0 ? n : e + 1;
      yield { kind: WS, start, end: i };
      continue;
    }
    if (c === '[') {
      const e = sql.indexOf(']', i + 1);
      if (e < 0) return false;
      i = e + 1;
      yield { kind: OTHER, start, end: i };
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      for (;;) {
        const e = sql.indexOf(c, j);
        if (e < 0) return false;
        if (sql[e + 1] === c) { j = e + 2; continue; }
        i = e + 1;
        break;
      }
      yield { kind: OTHER, start, end: i };
      continue;
    }
    if (/[A-Za-z_\x80-\uffff]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_$\x80-\uffff]/.test(sql[j]!)) j++;
      const w = sql.slice(i, j).toLowerCase();
      i = j;
      const kind = w === 'create' ? CREATE : w === 'temp' || w === 'temporary' ? TEMP : w === 'trigger' ? TRIGGER
        : w === 'end' ? END : w === 'explain' ? EXPLAIN : OTHER;
      yield { kind, start, end: i };
      continue;
    }
    i++;
    yield { kind: OTHER, start, end: i };
  }
  return true;
}

/** sqlite3_complete(). */
export function isComplete(sql: string): boolean {
  let state = 0;
  const it = tokens(sql);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value && state === 1;
    state = TRANS[state]![r.value.kind]!;
  }
}

/** The shell's quickscan: does the text end with ';' (outside strings and comments)? */
export function endsWithSemicolon(sql: string): boolean {
  let last = -1;
  const it = tokens(sql);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value && last === SEMI;
    if (r.value.kind !== WS || sql[r.value.start] === '/' || sql[r.value.start] === '-') last = r.value.kind === WS ? OTHER : r.value.kind;
  }
}

/** Statements of a text as SQLite would prepare them one by one: [start, end) offsets of each, empty ones left out. */
export function splitStatements(sql: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let state = 0;
  let start = -1;
  let lastReal = -1;
  let pos = 0;
  const it = tokens(sql);
  for (;;) {
    const r = it.next();
    if (r.done) {
      // An unclosed string or comment: the rest is one more statement (the parser says what is wrong).
      if (!r.value && start < 0) {
        const lead = sql.slice(pos).search(/\S/);
        if (lead >= 0) start = pos + lead;
      }
      break;
    }
    pos = r.value.end;
    const t = r.value;
    state = TRANS[state]![t.kind]!;
    if (t.kind !== WS && t.kind !== SEMI && start < 0) start = t.start;
    if (t.kind !== WS) lastReal = t.end;
    if (t.kind === SEMI && state === 1) {
      if (start >= 0) out.push({ start, end: t.end });
      start = -1;
    }
  }
  if (start >= 0) out.push({ start, end: sql.length });
  void lastReal;
  return out;
}
