/** Runs a compiled awk program: BEGIN, the records of every input, END; errors as gawk reports them. */
import type { CommandContext } from '../../src/command/index.js';
import { say } from './io.js';
import { NoshError } from '../../src/errors.js';
import { Compiler, type St } from './compile.js';
import { NEED } from './io.js';
import type { Program } from './parser.js';
import { AwkFatal } from './regex.js';
import { EXIT, Jump, NEXT, NEXTFILE, Rt, S } from './runtime.js';
import { FormatError } from './format.js';
import { AwkArr, SN, toNum, type V } from './values.js';

export interface RunOptions {
  fs?: string;
  assigns: string[];
  processEscapes: (s: string) => string;
}

interface Rule { test: (() => boolean) | null; action: St }

const FLUSH_AT = 64 * 1024;

export async function runProgram(ctx: CommandContext, prog: Program, rt: Rt, opts: RunOptions): Promise<number> {
  const c = new Compiler(rt, prog);
  const out = rt.outputs;
  let inMain = false;
  const flushWarnings = async (): Promise<void> => {
    if (rt.warnings.length === 0) return;
    const w = rt.warnings;
    rt.warnings = [];
    await out.stdout.flush();
    for (const m of w) await say(ctx, m);
  };
  const fatal = async (e: unknown): Promise<number> => {
    if (e instanceof RangeError && /Map maximum size|Invalid string length|Invalid array length/.test(e.message)) {
      out.closeAll();
      throw new NoshError('MEMORY_LIMIT', `${ctx.name}: the program's data grew past what one command may hold (${e.message})`,
        'Keep less in arrays and strings at once: aggregate as you go, or split the input and process it in parts.');
    }
    if (e instanceof AwkFatal || e instanceof FormatError) {
      await flushWarnings();
      await out.stdout.flush().catch(() => undefined);
      await out.stderr.flush().catch(() => undefined);
      if (e.message !== '') {
        const where = inMain ? ` (FILENAME=${rt.str(S.FILENAME) || '-'} FNR=${rt.str(S.FNR)})` : '';
        await say(ctx, `${rt.loc}:${where} fatal: ${e.message}`);
      }
      out.closeAll();
      return 2;
    }
    throw e;
  };

  const assignVar = (name: string, value: string): void => {
    const i = c.slot(name);
    if (rt.g[i] instanceof AwkArr) throw new AwkFatal(`cannot assign to array \`${name}'`);
    rt.g[i] = new SN(opts.processEscapes(value));
  };

  const begins: St[] = [], ends: St[] = [], bfiles: St[] = [], efiles: St[] = [];
  const rules: Rule[] = [];
  try {
    if (opts.fs !== undefined) rt.g[S.FS] = opts.fs;
    for (const a of opts.assigns) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(0, eq) : a;
      if (eq <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        await say(ctx, `fatal: \`${name}' is not a legal variable name`);
        return 2;
      }
      assignVar(name, a.slice(eq + 1));
    }
    rt.assignOperand = assignVar;
    for (const it of prog.items) {
      const body = it.body ? c.block(it.body) : null;
      switch (it.kind) {
        case 'BEGIN': begins.push(body!); break;
        case 'END': ends.push(body!); break;
        case 'BEGINFILE': bfiles.push(body!); break;
        case 'ENDFILE': efiles.push(body!); break;
        default: {
          const action: St = body ?? (() => { rt.printRec(out.stdout, rt.str(S.ORS)); return 0; });
          let test: (() => boolean) | null = null;
          if (it.pattern && it.pattern2) {
            const p1 = c.bool(it.pattern), p2 = c.bool(it.pattern2);
            let active = false;
            test = () => {
              if (!active) {
                if (!p1()) return false;
                active = !p2();
                return true;
              }
              if (p2()) active = false;
              return true;
            };
          } else if (it.pattern) test = c.bool(it.pattern);
          if (test && it.loc) {
            const t0 = test, loc = it.loc;
            test = () => { rt.loc = loc; return t0(); };
          }
          rules.push({ test, action });
        }
      }
    }
    for (const fn of c.fns.values()) c.compileFn(fn);
  } catch (e) {
    if (e instanceof AwkFatal && e.regex) {
      await flushWarnings();
      await say(ctx, `cmd. line:1: error: ${e.regex}`);
      return 1;
    }
    return fatal(e);
  }
  await flushWarnings();
  rt.userCompare = (name) => {
    const fn = c.fns.get(name);
    if (!fn) return null;
    const call = c.expr({ t: 'call', name, args: [{ t: 'var', name: '\0i1' }, { t: 'var', name: '\0v1' }, { t: 'var', name: '\0i2' }, { t: 'var', name: '\0v2' }], line: 0 });
    const [i1, v1, i2, v2] = ['\0i1', '\0v1', '\0i2', '\0v2'].map((n) => c.slot(n)) as [number, number, number, number];
    return (a: [string, V], b: [string, V]) => {
      rt.g[i1] = new SN(a[0]); rt.g[v1] = a[1]; rt.g[i2] = new SN(b[0]); rt.g[v2] = b[1];
      return toNum(call());
    };
  };

  /** Run a list of blocks; true when one exits. */
  const runBlocks = (list: St[]): boolean => {
    for (const b of list) {
      let st: number;
      try {
        st = b();
      } catch (e) {
        if (e instanceof Jump) st = e.code;
        else throw e;
      }
      if (st === EXIT) return true;
      if (st === NEXTFILE && list === bfiles) return false;
    }
    return false;
  };
  let exiting = false;
  rt.beginFile = () => {
    for (const b of bfiles) {
      let st: number;
      try { st = b(); } catch (e) { if (e instanceof Jump) st = e.code; else throw e; }
      if (st === EXIT) { exiting = true; return EXIT; }
      if (st === NEXTFILE) return NEXTFILE;
    }
    return 0;
  };
  rt.endFile = () => {
    if (runBlocks(efiles)) exiting = true;
  };

  try {
    if (prog.mainGetline) rt.stdinBuf = await ctx.stdin.readAll();
    exiting = runBlocks(begins);
    await flushWarnings();
    if (!exiting && (rules.length > 0 || ends.length > 0 || efiles.length > 0 || bfiles.length > 0)) {
      inMain = true;
      const nRules = rules.length;
      main: for (;;) {
        if (exiting) break;
        if (!rt.cur && !rt.openNext()) break;
        if (exiting) break;
        const cur = rt.cur;
        if (!cur) continue;
        const rsv = rt.g[S.RS];
        const rs = typeof rsv === 'string' ? rsv : rt.str(S.RS);
        if (rs.length === 1 && rs.charCodeAt(0) < 256) {
          // one-character RS: the record stays bytes until the program reads $0 or a field
          const got = cur.nextSpan(rs.charCodeAt(0));
          if (got < 0) {
            if (cur.sync) cur.fillSync();
            else await cur.fillAsync();
            continue;
          }
          if (got === 0) {
            rt.closeCur();
            continue;
          }
          rt.setRecordBytes(cur.rb, cur.rbs, cur.rbe);
        } else {
          const r = cur.next(rs);
          if (r === NEED) {
            if (cur.sync) cur.fillSync();
            else await cur.fillAsync();
            continue;
          }
          if (r === null) {
            rt.closeCur();
            continue;
          }
          rt.setRecord(r);
        }
        const g = rt.g;
        const nr = g[S.NR];
        g[S.NR] = typeof nr === 'number' ? nr + 1 : toNum(nr as V) + 1;
        const fnr = g[S.FNR];
        g[S.FNR] = typeof fnr === 'number' ? fnr + 1 : toNum(fnr as V) + 1;
        g[S.RT] = cur.rt;
        for (let k = 0; k < nRules; k++) {
          const rule = rules[k]!;
          let st: number;
          try {
            if (rule.test !== null && !rule.test()) continue;
            st = rule.action();
          } catch (e) {
            if (e instanceof Jump) st = e.code;
            else throw e;
          }
          if (st === 0) continue;
          if (st === NEXT) break;
          if (st === NEXTFILE) { rt.closeCur(); break; }
          if (st === EXIT) { exiting = true; break main; }
        }
        if (out.stdout.size > FLUSH_AT) await out.stdout.flush();
        if (rt.warnings.length) await flushWarnings();
      }
      inMain = false;
    }
    // exit in BEGIN or in a rule still runs END; exit in END stops it
    rt.cur?.close();
    rt.cur = null;
    rt.inEnd = true;
    if (!exitedInEnd(exiting, begins)) runBlocks(ends);
    await flushWarnings();
  } catch (e) {
    return fatal(e);
  }
  out.closeAll();
  await out.stdout.flush();
  await out.stderr.flush();
  for (const r of rt.readers.values()) r.close();
  return c.exitCode;
}

function exitedInEnd(_exiting: boolean, _begins: St[]): boolean {
  return false;
}
