/**
 * GNU fmt's engine (coreutils 9.1 fmt.c), one input at a time: getc over the input's chunks,
 * the paragraph buffers with their fixed limits, the cost model and the output with tabs.
 * run() reads and writes paragraph after paragraph; take() hands over the bytes written so far.
 */
const EOF = -1;
/** What getLine returns when a newline ended the line: the caller reads the next line's prefix. */
const NEXT_LINE = -2;
const MAXWORDS = 1000;
const MAXCHARS = 5000;
const TABWIDTH = 8;
const OUT_CHUNK = 64 * 1024;
const DEF_INDENT = 3;
const MAXCOST = Number.MAX_SAFE_INTEGER;
const EQUIV = (n: number) => n * n;
const SHORT_COST = (n: number) => EQUIV(n * 10);
const RAGGED_COST = (n: number) => Math.trunc(SHORT_COST(n) / 2);
const LINE_COST = EQUIV(70);
const WIDOW_COST = (n: number) => Math.trunc(EQUIV(200) / (n + 2));
const ORPHAN_COST = (n: number) => Math.trunc(EQUIV(150) / (n + 2));
const SENTENCE_BONUS = EQUIV(50);
const NOBREAK_COST = EQUIV(600);
const PAREN_BONUS = EQUIV(40);
const PUNCT_BONUS = EQUIV(40);
const LINE_CREDIT = EQUIV(3);

const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isPunct = (c: number) => (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
const isOpen = (c: number) => c !== 0 && "(['`\"".includes(String.fromCharCode(c));
const isClose = (c: number) => c !== 0 && ")]'\"".includes(String.fromCharCode(c));
const isPeriod = (c: number) => c !== 0 && '.?!'.includes(String.fromCharCode(c));

interface Word {
  text: number; // offset in parabuf
  length: number;
  space: number;
  paren: boolean;
  period: boolean;
  punct: boolean;
  final: boolean;
  lineLength: number;
  bestCost: number;
  nextBreak: number; // index of a word
}

export interface FmtOptions {
  crown: boolean; tagged: boolean; split: boolean; uniform: boolean;
  maxWidth: number; goal: number; prefix: string; prefixLead: number;
}

export class FmtEngine {
  private chunk: Uint8Array = new Uint8Array(0);
  private at = 0;
  private ended = false;
  /** Output not yet handed over; past OUT_CHUNK bytes it goes to `emit` (a paragraph of any length in bounded memory). */
  private out = Buffer.allocUnsafe(OUT_CHUNK);
  private outLen = 0;
  private readonly prefix: number[];
  private readonly prefixFull: number;
  private readonly prefixLen: number;
  private tabs = false;
  private inColumn = 0;
  private outColumn = 0;
  private parabuf = new Uint8Array(MAXCHARS);
  private wptr = 0;
  private word: Word[] = Array.from({ length: MAXWORDS }, () => newWord());
  private wordLimit = 0;
  private prefixIndent = 0;
  private firstIndent = 0;
  private otherIndent = 0;
  private nextChar = EOF;
  private nextPrefixIndent = 0;
  private lastLineLength = 0;
  private started = false;
  /** Push mode (src null): chunks given by feed(), the end by end(). */
  private readonly queue: Uint8Array[] = [];
  private inputEnded = false;

  /**
   * src: the input pulled chunk by chunk (a file); null: the input is pushed (feed/end) and
   * run() yields false when a line is not all there yet (standard input from a pipe).
   */
  constructor(private readonly o: FmtOptions, private readonly src: Iterator<Uint8Array> | null, private readonly emit?: (b: Buffer) => void) {
    const full = Buffer.from(o.prefix, 'latin1');
    this.prefixFull = full.length;
    let end = full.length;
    while (end > 0 && full[end - 1] === 0x20) end--;
    this.prefix = [...full.subarray(0, end)];
    this.prefixLen = end;
  }

  /**
   * The paragraphs: yields true after each one (take() its output) and, in push mode, false
   * when the next line is not all in the input given so far (feed() more, or end(), then go on).
   * Lines are the unit: the engine's state between two lines is bounded (at most MAXWORDS
   * words, MAXCHARS characters), so a pushed input needs no more than its longest line.
   */
  *run(): Generator<boolean, void> {
    for (;;) {
      if (!(yield* this.getParagraph())) return;
      this.fmtParagraph();
      this.putParagraph(this.wordLimit);
      yield true;
    }
  }

  feed(chunk: Uint8Array): void {
    if (chunk.length) this.queue.push(chunk);
  }

  end(): void {
    this.inputEnded = true;
  }

  /** Push mode: the next line (up to its newline, or the end of the input) is not all there yet. */
  private needMore(): boolean {
    if (this.src || this.inputEnded) return false;
    if (this.chunk.indexOf(0x0a, this.at) >= 0) return false;
    for (const q of this.queue) if (q.indexOf(0x0a) >= 0) return false;
    return true;
  }

  /** Before a line is read: in push mode, wait (yield false) until it is all there. */
  private *lineReady(): Generator<boolean, void> {
    while (this.needMore()) yield false;
  }

  take(): Buffer {
    const b = Buffer.from(this.out.subarray(0, this.outLen));
    this.outLen = 0;
    return b;
  }

  private getc(): number {
    for (;;) {
      if (this.at < this.chunk.length) return this.chunk[this.at++]!;
      if (this.ended) return EOF;
      if (!this.src) {
        const q = this.queue.shift();
        if (q) {
          this.chunk = q;
          this.at = 0;
          continue;
        }
        // needMore() said the line was there: only the end of the input is left.
        if (!this.inputEnded) throw new Error('fmt: input read past what was given');
        this.ended = true;
        return EOF;
      }
      const r = this.src.next();
      if (r.done) {
        this.ended = true;
        return EOF;
      }
      this.chunk = r.value;
      this.at = 0;
    }
  }

  private putchar(c: number): void {
    if (this.outLen === this.out.length) {
      if (this.emit) {
        this.emit(this.take());
      } else {
        const more = Buffer.allocUnsafe(this.out.length * 2);
        this.out.copy(more, 0, 0, this.outLen);
        this.out = more;
      }
    }
    this.out[this.outLen++] = c;
  }

  private setOtherIndent(same: boolean): void {
    const o = this.o;
    if (o.split) this.otherIndent = this.firstIndent;
    else if (o.crown) this.otherIndent = same ? this.inColumn : this.firstIndent;
    else if (o.tagged) {
      if (same && this.inColumn !== this.firstIndent) this.otherIndent = this.inColumn;
      else if (this.otherIndent === this.firstIndent) this.otherIndent = this.firstIndent === 0 ? DEF_INDENT : 0;
    } else this.otherIndent = this.firstIndent;
  }

  private *getParagraph(): Generator<boolean, boolean> {
    if (!this.started) {
      this.started = true;
      if (this.needMore()) yield* this.lineReady();
      this.nextChar = this.getPrefix();
    }
    this.lastLineLength = 0;
    let c = this.nextChar;
    while (c === 0x0a || c === EOF || this.nextPrefixIndent < this.o.prefixLead || this.inColumn < this.nextPrefixIndent + this.prefixFull) {
      c = this.copyRest(c);
      if (c === EOF) {
        this.nextChar = EOF;
        return false;
      }
      this.putchar(0x0a);
      if (this.needMore()) yield* this.lineReady();
      c = this.getPrefix();
    }
    this.prefixIndent = this.nextPrefixIndent;
    this.firstIndent = this.inColumn;
    this.wptr = 0;
    this.wordLimit = 0;
    // getLine stops at a newline (NEXT_LINE): the next line's prefix is read once it is all there.
    c = this.getLine(c);
    if (c === NEXT_LINE) {
      if (this.needMore()) yield* this.lineReady();
      c = this.getPrefix();
    }
    this.setOtherIndent(this.samePara(c));
    const o = this.o;
    const more = o.split ? false : o.crown ? this.samePara(c) : o.tagged ? this.samePara(c) && this.inColumn !== this.firstIndent : true;
    if (more && !o.crown && !o.tagged) {
      while (this.samePara(c) && this.inColumn === this.otherIndent) {
        c = this.getLine(c);
        if (c === NEXT_LINE) {
          if (this.needMore()) yield* this.lineReady();
          c = this.getPrefix();
        }
      }
    } else if (more) {
      do {
        c = this.getLine(c);
        if (c === NEXT_LINE) {
          if (this.needMore()) yield* this.lineReady();
          c = this.getPrefix();
        }
      } while (this.samePara(c) && this.inColumn === this.otherIndent);
    }
    const last = this.word[this.wordLimit - 1]!;
    last.period = last.final = true;
    this.nextChar = c;
    return true;
  }

  private copyRest(c: number): number {
    this.outColumn = 0;
    if (this.inColumn > this.nextPrefixIndent || (c !== 0x0a && c !== EOF)) {
      this.putSpace(this.nextPrefixIndent);
      for (let i = 0; this.outColumn !== this.inColumn && i < this.prefix.length; this.outColumn++) this.putchar(this.prefix[i++]!);
      if (c !== EOF && c !== 0x0a) this.putSpace(this.inColumn - this.outColumn);
      if (c === EOF && this.inColumn >= this.nextPrefixIndent + this.prefixLen) this.putchar(0x0a);
    }
    while (c !== 0x0a && c !== EOF) {
      this.putchar(c);
      c = this.getc();
    }
    return c;
  }

  private samePara(c: number): boolean {
    return this.nextPrefixIndent === this.prefixIndent && this.inColumn >= this.nextPrefixIndent + this.prefixFull && c !== 0x0a && c !== EOF;
  }

  private getLine(c: number): number {
    do {
      const w = this.word[this.wordLimit]!;
      w.text = this.wptr;
      do {
        if (this.wptr === MAXCHARS) {
          this.setOtherIndent(true);
          this.flushParagraph();
        }
        this.parabuf[this.wptr++] = c;
        c = this.getc();
      } while (c !== EOF && !isSpace(c));
      const cur = this.word[this.wordLimit]!;
      cur.length = this.wptr - cur.text;
      this.inColumn += cur.length;
      this.checkPunctuation(cur);
      const start = this.inColumn;
      c = this.getSpace(c);
      cur.space = this.inColumn - start;
      cur.final = c === EOF || (cur.period && (c === 0x0a || cur.space > 1));
      if (c === 0x0a || c === EOF || this.o.uniform) cur.space = cur.final ? 2 : 1;
      if (this.wordLimit === MAXWORDS - 2) {
        this.setOtherIndent(true);
        this.flushParagraph();
      }
      this.wordLimit++;
      if (c === EOF) {
        // (nothing of this line is left for copy_rest to finish)
        this.inColumn = 0;
        return EOF;
      }
    } while (c !== 0x0a);
    return NEXT_LINE;
  }

  private getPrefix(): number {
    this.inColumn = 0;
    let c = this.getSpace(this.getc());
    if (this.prefixLen === 0) this.nextPrefixIndent = Math.min(this.o.prefixLead, this.inColumn);
    else {
      this.nextPrefixIndent = this.inColumn;
      for (const pc of this.prefix) {
        if (c !== pc) return c;
        this.inColumn++;
        c = this.getc();
      }
      c = this.getSpace(c);
    }
    return c;
  }

  private getSpace(c: number): number {
    for (;;) {
      if (c === 0x20) this.inColumn++;
      else if (c === 0x09) {
        this.tabs = true;
        this.inColumn = (Math.floor(this.inColumn / TABWIDTH) + 1) * TABWIDTH;
      } else return c;
      c = this.getc();
    }
  }

  private checkPunctuation(w: Word): void {
    const start = w.text;
    let finish = start + w.length - 1;
    const fin = this.parabuf[finish]!;
    w.paren = isOpen(this.parabuf[start]!);
    w.punct = isPunct(fin);
    while (start < finish && isClose(this.parabuf[finish]!)) finish--;
    w.period = isPeriod(this.parabuf[finish]!);
  }

  private flushParagraph(): void {
    if (this.wordLimit === 0) {
      for (let i = 0; i < this.wptr; i++) this.putchar(this.parabuf[i]!);
      this.wptr = 0;
      return;
    }
    this.fmtParagraph();
    let split = this.wordLimit;
    let best = MAXCOST;
    for (let w = this.word[0]!.nextBreak; w !== this.wordLimit; w = this.word[w]!.nextBreak) {
      const W = this.word[w]!;
      const d = W.bestCost - this.word[W.nextBreak]!.bestCost;
      if (d < best) {
        split = w;
        best = d;
      }
      if (best <= MAXCOST - LINE_CREDIT) best += LINE_CREDIT;
    }
    this.putParagraph(split);
    const shift = this.word[split]!.text;
    this.parabuf.copyWithin(0, shift, this.wptr);
    this.wptr -= shift;
    for (let w = split; w <= this.wordLimit; w++) this.word[w]!.text -= shift;
    const moved = this.word.slice(split, this.wordLimit + 1).map((w) => ({ ...w, nextBreak: w.nextBreak - split }));
    for (let i = 0; i < moved.length; i++) this.word[i] = moved[i]!;
    this.wordLimit -= split;
  }

  private fmtParagraph(): void {
    const words = this.word;
    const limit = this.wordLimit;
    words[limit]!.bestCost = 0;
    const saved = words[limit]!.length;
    words[limit]!.length = this.o.maxWidth;
    for (let start = limit - 1; start >= 0; start--) {
      let best = MAXCOST;
      let len = start === 0 ? this.firstIndent : this.otherIndent;
      let w = start;
      len += words[w]!.length;
      do {
        w++;
        let wcost = this.lineCost(w, len) + words[w]!.bestCost;
        if (start === 0 && this.lastLineLength > 0) wcost += RAGGED_COST(len - this.lastLineLength);
        if (wcost < best) {
          best = wcost;
          words[start]!.nextBreak = w;
          words[start]!.lineLength = len;
        }
        if (w === limit) break;
        len += words[w - 1]!.space + words[w]!.length;
      } while (len < this.o.maxWidth);
      words[start]!.bestCost = best + this.baseCost(start);
    }
    words[limit]!.length = saved;
  }

  private baseCost(t: number): number {
    const words = this.word;
    let cost = LINE_COST;
    if (t > 0) {
      const prev = words[t - 1]!;
      if (prev.period) {
        if (prev.final) cost -= SENTENCE_BONUS;
        else cost += NOBREAK_COST;
      } else if (prev.punct) cost -= PUNCT_BONUS;
      else if (t > 1 && words[t - 2]!.final) cost += WIDOW_COST(prev.length);
    }
    const w = words[t]!;
    if (w.paren) cost -= PAREN_BONUS;
    else if (w.final) cost += ORPHAN_COST(w.length);
    return cost;
  }

  private lineCost(next: number, len: number): number {
    if (next === this.wordLimit) return 0;
    let cost = SHORT_COST(this.o.goal - len);
    const n = this.word[next]!;
    if (n.nextBreak !== this.wordLimit) cost += RAGGED_COST(len - n.lineLength);
    return cost;
  }

  private putParagraph(finish: number): void {
    this.putLine(0, this.firstIndent);
    for (let w = this.word[0]!.nextBreak; w !== finish; w = this.word[w]!.nextBreak) this.putLine(w, this.otherIndent);
  }

  private putLine(w: number, indent: number): void {
    this.outColumn = 0;
    this.putSpace(this.prefixIndent);
    for (const c of this.prefix) this.putchar(c);
    this.outColumn += this.prefixLen;
    this.putSpace(indent - this.outColumn);
    const endline = this.word[w]!.nextBreak - 1;
    for (; w !== endline; w++) {
      this.putWord(w);
      this.putSpace(this.word[w]!.space);
    }
    this.putWord(w);
    this.lastLineLength = this.outColumn;
    this.putchar(0x0a);
  }

  private putWord(w: number): void {
    const W = this.word[w]!;
    for (let i = 0; i < W.length; i++) this.putchar(this.parabuf[W.text + i]!);
    this.outColumn += W.length;
  }

  private putSpace(space: number): void {
    const target = this.outColumn + space;
    if (this.tabs) {
      const tabTarget = Math.floor(target / TABWIDTH) * TABWIDTH;
      if (this.outColumn + 1 < tabTarget) {
        while (this.outColumn < tabTarget) {
          this.putchar(0x09);
          this.outColumn = (Math.floor(this.outColumn / TABWIDTH) + 1) * TABWIDTH;
        }
      }
    }
    while (this.outColumn < target) {
      this.putchar(0x20);
      this.outColumn++;
    }
  }
}

function newWord(): Word {
  return { text: 0, length: 0, space: 0, paren: false, period: false, punct: false, final: false, lineLength: 0, bestCost: 0, nextBreak: 0 };
}
