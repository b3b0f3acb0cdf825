/**
 * GNU sed 4.9 interpreter (a reading of sed/execute.c) over byte strings (latin1), streaming:
 * input is read chunk by chunk and split on the line delimiter; only the pattern and hold
 * spaces (and one line of look-ahead) are kept.
 */
import type { CommandContext } from '../../src/command/index.js';
import { VfsError, type AtomicWriter } from '../../src/vfs/index.js';
import { valueLimit, valueTooBig } from '../../src/runtime/memory.js';
import { countGroups, SedError, segmented, type Addr, type Cmd, type Program, type Rx, type Subst } from './parse.js';
import { FLUSH_AT, Out, Line, ChunkSource, FileLines, ExecOptions, AppendItem, QUIT, NEED_LAST, SedOutputs } from './output.js';
import { segExec, resultLength, maxResult, Pieces, isReadError, FAST_REPLACE_MAX, TAIL_PIECES, neverEmpty, replacer, expand, expandCase, listLine, lineLocal, literalSubst, replaceLiteral } from './subst.js';
export class SedRunner {
  private readonly delim: string;
  /**
   * The pattern space is psHead + psParts.join('') + psTail.join(''): N appends to the tail
   * without reading it, and every TAIL_PIECES pieces the tail becomes one flat part. A
   * chain of string concatenations, one per line, is millions of small objects that every
   * garbage collection walks: `:a;N;$!ba` over 3.5 million lines took 10x GNU's time, two
   * thirds of it in GC. Reading `ps` joins everything once.
   */
  private psHead = '';
  private psParts: string[] = [];
  private psTail: string[] = [];
  /** Characters in psParts and psTail. */
  private psExtra = 0;
  private psNl = true;
  private hold = '';
  private holdNl = true;
  private lineNo = 0;
  private tflag = false;
  private lastRe: RegExp | null = null;
  /** The last regex was an address's (GNU compiled it without groups and re-checks s//\N). */
  private lastReAddr = false;
  private append: AppendItem[] = [];
  private readonly stdoutOut: Out;
  private readonly stderrOut: Out;
  private out: Out;
  private readonly wouts: Map<string, Out>;
  private readonly writers: AtomicWriter[];
  /** R's files, read a line at a time; null once unreadable or at their end. */
  private readonly rfiles = new Map<string, FileLines | null>();
  private status = 0;
  private quitStatus: number | null = null;
  private cur: FileLines | null = null;
  private curName = '-';
  /** Files not opened yet. */
  private pending: string[] = [];
  /** The line is the last one; null until a `$` address is reached (GNU's test_eof opens the next files only then). */
  private last: boolean | null = false;
  /** Commands (by index) with a `$` address. */
  private readonly lastAt: boolean[];
  /** Pattern plus hold space may not pass this (see valueLimit). */
  private readonly maxSpace = valueLimit();

  constructor(private readonly ctx: CommandContext, private readonly prog: Program, private readonly o: ExecOptions, outputs: SedOutputs) {
    this.delim = o.nullData ? '\0' : '\n';
    this.stdoutOut = outputs.stdout;
    this.stderrOut = outputs.stderr;
    this.wouts = outputs.wouts;
    this.writers = outputs.writers;
    this.out = this.stdoutOut;
    this.lastAt = prog.cmds.map((c) => c.a1?.kind === 'last' || c.a2?.kind === 'last');
    this.bulk = bulkScript(prog, o, this.delim);
    this.literal = this.bulk && literalSubst(this.bulk);
  }

  /** The bulk s///g's regex and replacement as bytes when both are literal (done on bytes, see replaceLiteral). */
  private readonly literal: [Buffer, Buffer] | null;

  /** The one `s///g` applied to blocks of lines (see bulkSubst), or null. */
  private readonly bulk: Subst | null;

  async run(operands: string[]): Promise<number> {
    try {
      if (this.o.inPlace !== undefined) await this.runInPlace(operands);
      else {
        this.pending = operands.length ? [...operands] : ['-'];
        await this.loop();
      }
    } finally {
      await this.finish();
    }
    // an unreadable input file makes the status 2 even after q/Q with an exit code, as in GNU
    if (this.status !== 0 || this.quitStatus === null) return this.status;
    return this.quitStatus & 0xff; // exit(256) is 0
  }

  private async finish(): Promise<void> {
    await this.stdoutOut.flush();
    await this.stderrOut.flush();
    for (const [name, o] of this.wouts) if (name !== '/dev/stdout' && name !== '/dev/stderr') await o.flush();
    for (const w of this.writers) w.commit();
  }

  private async runInPlace(operands: string[]): Promise<void> {
    if (operands.length === 0) throw new SedError('no input files', 1);
    const fs = this.ctx.fs;
    for (const name of operands) {
      if (this.quitStatus !== null) break;
      let st;
      try {
        st = fs.stat(name, this.ctx.cwd);
      } catch (e) {
        if (e instanceof VfsError) {
          await this.ctx.warn(`can't read ${name}: ${e.reason}`);
          this.status = 2;
          continue;
        }
        throw e;
      }
      if (!st.isFile()) {
        await this.stdoutOut.flush();
        throw new SedError(`couldn't edit ${name}: not a regular file`, 4);
      }
      if (this.o.inPlace) {
        const backup = backupName(name, this.o.inPlace);
        fs.createWriter(backup, this.ctx.cwd).writeAll(fs.readChunks(name, this.ctx.cwd));
      }
      const w = fs.createWriter(name, this.ctx.cwd);
      const fileOut = new Out((b) => w.write(b), this.delim);
      this.out = fileOut;
      try {
        this.pending = [name];
        this.cur = null;
        this.lineNo = 0;
        this.hold = ''; // GNU starts each file of -s/-i with an empty hold space
        this.resetRanges();
        await this.loop();
        await fileOut.flush();
        w.commit();
      } catch (e) {
        w.abort();
        throw e;
      } finally {
        this.out = this.stdoutOut;
      }
    }
  }

  private resetRanges(): void {
    for (const c of this.prog.cmds) {
      c.range = c.a1?.kind === 'line' && c.a1.n === 0 ? 1 : 0;
    }
    for (const r of this.rfiles.values()) r?.close();
    this.rfiles.clear();
  }

  /** Make the current file have a line ready; moves to the next files unless separate. Returns false at end. */
  private async ready(crossFiles: boolean): Promise<boolean> {
    for (;;) {
      if (this.cur) {
        if (this.cur.hasBuffered()) return true;
        try {
          if (await this.cur.fill()) return true;
        } catch (e) {
          await this.readFailed(e);
          continue;
        }
        if (!crossFiles) return false;
        this.cur = null;
      }
      if (!this.openNext()) return false;
    }
  }

  /** Make the next pending file the current one (read from on demand); false when none is left. */
  private openNext(): boolean {
    const next = this.pending.shift();
    if (next === undefined) return false;
    this.curName = next;
    const src: ChunkSource = next === '-' && this.o.inPlace === undefined
      ? (this.ctx.stdin as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()
      : this.ctx.fs.readChunks(next, this.ctx.cwd);
    this.cur = new FileLines(src, this.delim, next !== '-' || this.o.inPlace !== undefined);
    return true;
  }

  /** The current file could not be read on: GNU's message, and on to the next file. */
  private async readFailed(e: unknown): Promise<void> {
    this.cur = null;
    if (!(e instanceof VfsError)) throw e;
    if (e.errno === 'EISDIR') {
      await this.stdoutOut.flush();
      throw new SedError(`read error on ${this.curName}: ${e.reason}`, 4);
    }
    await this.ctx.warn(`can't read ${this.curName}: ${e.reason}`);
    this.status = 2;
  }

  /**
   * The bulk path: the script is one `s///g` without an address whose regex cannot reach
   * past a line (lineLocal), so one global replace over a block of whole lines gives what
   * the cycle gives line by line, without a string per line. Line numbers are not kept: no
   * command of such a script reads them.
   */
  private bulkSubst(sub: Subst, block: string): void {
    this.checkBlock(block);
    const re = sub.rx.re!;
    re.lastIndex = 0;
    if (!re.test(block)) {
      this.out.put(block);
      return;
    }
    re.lastIndex = 0;
    const r = replacer(sub);
    this.out.put(typeof r === 'string' ? block.replace(re, r) : block.replace(re, r));
  }

  /**
   * The cycle's limit on a pattern space holds on the bulk path too: when the block could
   * grow past it, each line's result is measured and one too long is MEMORY_LIMIT.
   */
  private checkBlock(block: string | Buffer): void {
    const sub = this.bulk!;
    if (maxResult(sub, block.length) <= this.maxSpace) return;
    const text = typeof block === 'string' ? block : block.toString('latin1');
    const re = sub.rx.re!;
    for (let at = 0; at < text.length;) {
      let end = text.indexOf(this.delim, at);
      if (end < 0) end = text.length;
      const line = text.slice(at, end);
      if (maxResult(sub, line.length) > this.maxSpace && resultLength(sub, re, line) > this.maxSpace) throw valueTooBig("sed's pattern space");
      at = end + 1;
    }
  }

  /** Is the line just read the last one (of the file with -s/-i, of the input otherwise)? */
  private async atLast(): Promise<boolean> {
    if (this.cur && this.cur.hasBuffered()) return false;
    if (this.o.separate || this.o.inPlace !== undefined) {
      if (!this.cur) return true;
      try {
        return !(await this.cur.fill());
      } catch {
        return true;
      }
    }
    return !(await this.ready(true));
  }

  /** Read the next line into a Line, or null at the end. */
  private async read(): Promise<Line | null> {
    const cross = !(this.o.separate || this.o.inPlace !== undefined);
    if (!(await this.ready(cross))) {
      if (!cross && this.pending.length > 0) {
        // -s: next file, line numbers and ranges restart
        this.cur = null;
        this.lineNo = 0;
        this.hold = ''; // GNU starts each file of -s/-i with an empty hold space
        this.resetRanges();
        if (!(await this.ready(false))) return this.read();
      } else return null;
    }
    const l = this.cur!.take();
    this.lineNo++;
    // GNU looks past the line (opening the next files, which F then names) only when `$` is tested
    this.last = this.cur!.hasBuffered() ? false : null;
    return l;
  }

  private async loop(): Promise<void> {
    const cmds = this.prog.cmds;
    let restart = false;
    for (;;) {
      if (!restart) {
        if (this.bulk && (this.cur ? !this.cur.hasBuffered() : this.openNext())) {
          let block: string | Buffer[] | null;
          try {
            block = this.literal ? await this.cur!.takeBlockBytes() : await this.cur!.takeBlock();
          } catch (e) {
            await this.readFailed(e);
            continue;
          }
          // (null: the end of this file; an unterminated last line is queued for the cycle)
          if (block !== null) {
            if (typeof block === 'string') this.bulkSubst(this.bulk, block);
            else {
              this.out.put('');
              for (const b of block) {
                this.checkBlock(b);
                this.out.addBytes(replaceLiteral(b, this.literal![0], this.literal![1], this.cur!.owned));
              }
            }
            if (this.out.size >= FLUSH_AT) await this.out.flush();
            continue;
          }
        }
        const l = await this.read();
        if (!l) break;
        this.ps = l.text;
        this.psNl = l.nl;
        this.tflag = false;
      }
      restart = false;
      let print = !this.o.quiet;
      let pc = 0;
      const n = cmds.length;
      while (pc < n) {
        const c = cmds[pc]!;
        let hit = false;
        if (c.a1) {
          if (this.last === null && this.lastAt[pc]) {
            try {
              hit = this.matchAddress(c);
            } catch (e) {
              // `$` was reached: look past the line (matching again is free of side effects up to there)
              if (e !== NEED_LAST) throw e;
              this.last = await this.atLast();
              hit = this.matchAddress(c);
            }
          } else hit = this.matchAddress(c);
        }
        // `!` without an address never runs its command, as in GNU
        if (c.a1 ? hit === c.bang : c.bang) {
          pc = c.cmd === '{' ? c.jump! : pc + 1;
          continue;
        }
        pc++;
        const r = c.cmd === 'n' || c.cmd === 'N' ? await this.execRead(c) : c.cmd === 'R' ? await this.execR(c.fname!) : this.exec(c);
        if (r === undefined) continue;
        if (typeof r === 'number') {
          pc = r;
          continue;
        }
        if (r === 'end') break;
        if (r === 'delete') {
          print = false;
          break;
        }
        if (r === 'restart') {
          print = false;
          restart = true;
          break;
        }
        if (r === QUIT) {
          print = false;
          break;
        }
      }
      if (print) this.out.putLine(this.ps, this.psNl, this.delim);
      if (this.quitStatus !== null && this.quitDump) this.out.endLine();
      if (!restart && (this.quitStatus === null || this.quitDump)) this.dumpAppend();
      if (this.out.size >= FLUSH_AT) await this.out.flush();
      if (this.stdoutOut !== this.out && this.stdoutOut.size >= FLUSH_AT) await this.stdoutOut.flush();
      for (const w of this.wouts.values()) if (w.size >= FLUSH_AT) await w.flush();
      if (this.quitStatus !== null) return;
    }
  }

  private quitDump = false;

  /** i and c end their text with the line delimiter (NUL under -z); a keeps its newline. */
  private lineText(t: string): string {
    return t.endsWith('\n') ? t.slice(0, -1) + this.delim : t;
  }

  private dumpAppend(): void {
    if (this.append.length === 0) return;
    for (const a of this.append) {
      if (a.text !== undefined) this.out.put(a.text);
      else if (a.file !== undefined) {
        // GNU ends an unterminated line even when the file turns out unreadable
        this.out.put('');
        try {
          for (const chunk of this.ctx.fs.readChunks(a.file, this.ctx.cwd)) this.out.addBytes(chunk);
        } catch (e) {
          // GNU ignores unreadable r files (not the memory budget or the output cap)
          if (!isReadError(e)) throw e;
        }
      }
    }
    this.append = [];
  }

  private matchOne(a: Addr): boolean {
    switch (a.kind) {
      case 'line':
        return a.n === 0 ? this.lineNo === 1 : this.lineNo === a.n; // 0 only in 0r
      case 'step':
        return this.lineNo >= a.n && (this.lineNo - a.n) % a.step === 0;
      case 'last':
        if (this.last === null) throw NEED_LAST;
        return this.last;
      case 're': {
        const re = this.regex(a.rx!, true);
        if (segmented.has(re)) return segExec(re, this.ps, 0) !== null;
        re.lastIndex = 0;
        return re.test(this.ps);
      }
      default:
        return false;
    }
  }

  /**
   * Range state: 0 waiting for a1, 1 active, 2 closed for good. GNU enters a range whose first
   * address is a line number on the first line at or past it that the command sees (lines
   * skipped by n/N, d or branches), unless that line is also past a line-number end, and
   * never enters it again. While active, a line-number
   * a2 ends it without matching once passed; addr,+N and addr,~N match the line that reaches
   * or passes their end.
   */
  private matchAddress(c: Cmd): boolean {
    if (!c.a2) return this.matchOne(c.a1!);
    const l = this.lineNo;
    const a2 = c.a2;
    const close = (): void => {
      c.range = c.a1!.kind === 'line' ? 2 : 0;
    };
    if (c.range === 1) {
      if (a2.kind === 'line') {
        if (a2.n <= l) close();
        return l <= a2.n;
      }
      if (a2.kind === 'plus' || a2.kind === 'tilde') {
        if (c.rangeEnd <= l) close();
        return true;
      }
      if (this.matchOne(a2)) close();
      return true;
    }
    if (c.range === 2) return false;
    if (c.a1!.kind === 'line') {
      // a skipped-to line enters the range unless a line-number end is already passed too
      if (l < c.a1!.n || (l !== c.a1!.n && a2.kind === 'line' && l > a2.n)) return false;
    } else if (!this.matchOne(c.a1!)) return false;
    switch (a2.kind) {
      case 'line':
        if (a2.n <= l) {
          close();
          return true;
        }
        c.rangeEnd = a2.n;
        break;
      case 'plus':
        if (a2.n === 0) {
          close();
          return true;
        }
        c.rangeEnd = l + a2.n;
        break;
      case 'tilde':
        if (a2.n === 0) {
          close();
          return true;
        }
        c.rangeEnd = l + a2.n - (l % a2.n);
        break;
      case 'last':
      case 'step':
        // GNU already tries $ and first~step on the line that starts the range
        if (this.matchOne(a2)) {
          close();
          return true;
        }
        break;
      default:
        break;
    }
    c.range = 1;
    return true;
  }

  private regex(rx: Rx, addr = false): RegExp {
    if (rx.re) {
      this.lastRe = rx.re;
      this.lastReAddr = addr;
      return rx.re;
    }
    if (!this.lastRe) throw new SedError(`-e expression #${this.prog.exprCount}, char 0: no previous regular expression`, 1);
    return this.lastRe;
  }

  private wout(name: string): Out {
    return this.wouts.get(name)!;
  }

  private async execRead(c: Cmd): Promise<'end' | undefined> {
    if (!(await this.hasNext())) return 'end';
    if (c.cmd === 'n' && !this.o.quiet) this.out.putLine(this.ps, this.psNl, this.delim);
    this.dumpAppend();
    const l = (await this.read())!;
    if (c.cmd === 'n') this.ps = l.text;
    else this.appendLine(l.text);
    this.checkSpace();
    this.psNl = l.nl;
    this.tflag = false;
    return undefined;
  }

  private exec(c: Cmd): number | 'end' | 'delete' | 'restart' | typeof QUIT | undefined {
    switch (c.cmd) {
      case '{':
      case '}':
      case ':':
        return undefined;
      case '=':
        this.out.put(`${this.lineNo}${this.delim}`);
        return undefined;
      case 'a':
        // even an empty text ends an unterminated last line, as in GNU
        this.append.push({ text: c.text ?? '' });
        return undefined;
      case 'i':
        if (c.text) this.out.put(this.lineText(c.text));
        return undefined;
      case 'c':
        if (!c.a2 || c.range !== 1) {
          if (c.text) this.out.put(this.lineText(c.text));
        }
        return 'delete';
      case 'b':
        return c.jump!;
      case 't':
        if (this.tflag) {
          this.tflag = false;
          return c.jump!;
        }
        return undefined;
      case 'T':
        if (!this.tflag) return c.jump!;
        this.tflag = false;
        return undefined;
      case 'd':
        return 'delete';
      case 'D': {
        const i = this.ps.indexOf(this.delim);
        if (i < 0) return 'delete';
        this.ps = this.ps.slice(i + 1);
        return 'restart';
      }
      case 'L':
        throw new SedError('INTERNAL ERROR: Bad cmd L', 4);
      case 'e':
        throw new SedError('e command is not supported in nosh (no shell)', 1);
      case 'F':
        // the file open now: after `$` or n/N looked past a file's last line, the next one
        this.out.put(`${this.curName}${this.delim}`);
        return undefined;
      case 'g':
        this.ps = this.hold;
        this.psNl = this.holdNl;
        return undefined;
      case 'G':
        this.ps += this.delim + this.hold;
        this.psNl = this.holdNl;
        this.checkSpace();
        return undefined;
      case 'h':
        this.hold = this.ps;
        this.holdNl = this.psNl;
        return undefined;
      case 'H':
        this.hold += this.delim + this.ps;
        this.holdNl = this.psNl;
        this.checkSpace();
        return undefined;
      case 'x': {
        const t = this.ps;
        this.ps = this.hold;
        this.hold = t;
        const n = this.psNl;
        this.psNl = this.holdNl;
        this.holdNl = n;
        return undefined;
      }
      case 'z':
        this.ps = '';
        return undefined;
      case 'l':
        this.out.put('');
        this.out.addBytes(listLine(this.ps, c.int! >= 0 ? c.int! : this.o.lineLength, this.delim));
        return undefined;
      case 'p':
        this.out.putLine(this.ps, this.psNl, this.delim);
        return undefined;
      case 'P': {
        const i = this.ps.indexOf(this.delim);
        if (i < 0) this.out.putLine(this.ps, this.psNl, this.delim);
        else this.out.putLine(this.ps.slice(0, i), true, this.delim);
        return undefined;
      }
      case 'q':
        this.quitStatus = c.int! >= 0 ? c.int! : 0;
        this.quitDump = true;
        return 'end';
      case 'Q':
        this.quitStatus = c.int! >= 0 ? c.int! : 0;
        this.quitDump = false;
        return QUIT;
      case 'r':
        if (c.a1?.kind === 'line' && c.a1.n === 0 && !c.a2) {
          // 0r: GNU writes the file at once, ahead of any pending missing newline
          try {
            for (const chunk of this.ctx.fs.readChunks(c.fname!, this.ctx.cwd)) this.out.addBytes(chunk);
          } catch (e) {
            // unreadable r files are ignored
            if (!isReadError(e)) throw e;
          }
        } else this.append.push({ file: c.fname! });
        return undefined;
      case 'w':
        this.wout(c.out!.name).putLine(this.ps, this.psNl, this.delim);
        return undefined;
      case 'W': {
        const i = this.ps.indexOf(this.delim);
        if (i < 0) this.wout(c.out!.name).putLine(this.ps, this.psNl, this.delim);
        else this.wout(c.out!.name).putLine(this.ps.slice(0, i), true, this.delim);
        return undefined;
      }
      case 's':
        this.subst(c.subst!);
        return undefined;
      case 'y': {
        // In place in a Buffer: one concatenation per character would be a heap object each.
        const m = Uint8Array.from(c.ymap!, (t) => t.charCodeAt(0));
        const b = Buffer.from(this.ps, 'latin1');
        for (let i = 0; i < b.length; i++) b[i] = m[b[i]!]!;
        this.ps = b.toString('latin1');
        return undefined;
      }
      default:
        return undefined;
    }
  }

  private async hasNext(): Promise<boolean> {
    if (this.cur && this.cur.hasBuffered()) return true;
    return !(await this.atLast());
  }

  /** R: the file's next line, if any, to append at the end of the cycle. */
  private async execR(name: string): Promise<undefined> {
    let r = this.rfiles.get(name);
    if (r === undefined) {
      r = new FileLines(this.ctx.fs.readChunks(name, this.ctx.cwd), this.delim);
      this.rfiles.set(name, r);
    }
    if (r === null) return undefined;
    try {
      if (await r.fill()) {
        const l = r.take();
        this.append.push({ text: l.nl ? l.text + this.delim : l.text });
        return undefined;
      }
    } catch (e) {
      // unreadable R files are ignored, as in GNU
      if (!isReadError(e)) throw e;
    }
    this.rfiles.set(name, null);
    return undefined;
  }

  private get ps(): string {
    if (this.psExtra > 0) {
      this.psHead = this.psHead + this.psParts.join('') + this.psTail.join('');
      this.psParts = [];
      this.psTail = [];
      this.psExtra = 0;
    }
    return this.psHead;
  }

  private set ps(text: string) {
    this.psHead = text;
    if (this.psExtra > 0) {
      this.psParts = [];
      this.psTail = [];
      this.psExtra = 0;
    }
  }

  /** N: a newline and the next line onto the pattern space, without reading it. */
  private appendLine(text: string): void {
    this.psTail.push(this.delim, text);
    this.psExtra += this.delim.length + text.length;
    if (this.psTail.length >= TAIL_PIECES) {
      this.psParts.push(this.psTail.join(''));
      this.psTail = [];
    }
  }

  /** Pattern plus hold space past maxSpace: MEMORY_LIMIT before a doubling loop reaches the heap's end. */
  private checkSpace(): void {
    if (this.psHead.length + this.psExtra + this.hold.length > this.maxSpace) throw valueTooBig("sed's pattern and hold space");
  }

  private subst(sub: Subst): void {
    const re = this.regex(sub.rx);
    const ps = this.ps;
    if (!sub.rx.re && this.lastReAddr && sub.maxRef > countGroups(re)) {
      // GNU recompiles an address regex for s//\N and checks the reference then
      throw new SedError(`-e expression #${this.prog.exprCount}, char 0: invalid reference \\${sub.maxRef} on \`s' command's RHS`, 1);
    }
    const seg = segmented.has(re);
    /** The first match at or after `from`. */
    const find = (from: number): RegExpExecArray | null => {
      if (seg) return segExec(re, ps, from);
      re.lastIndex = from;
      return re.exec(ps);
    };
    // V8's global replace keeps every match's place in the heap until it builds the result
    // (about 24 bytes a match): a long line with millions of matches exhausts the worker's
    // heap, which aborts the whole process. Long pattern spaces take the loop below.
    if (sub.global && sub.nth <= 1 && !sub.hasCase && !seg && ps.length <= FAST_REPLACE_MAX && neverEmpty(re)) {
      re.lastIndex = 0;
      if (!re.test(ps)) return;
      // A big pattern space: the result's length is counted before it is built.
      if (maxResult(sub, ps.length) > this.maxSpace && resultLength(sub, re, ps) + this.hold.length > this.maxSpace) {
        throw valueTooBig("sed's pattern space");
      }
      re.lastIndex = 0;
      const r = replacer(sub);
      this.ps = typeof r === 'string' ? ps.replace(re, r) : ps.replace(re, r);
      this.tflag = true;
      if (sub.print) this.out.putLine(this.ps, this.psNl, this.delim);
      if (sub.out) this.wout(sub.out.name).putLine(this.ps, this.psNl, this.delim);
      return;
    }
    let m = find(0);
    if (!m) return;
    const out = new Pieces();
    let start = 0;
    let count = 0;
    let prevEnd = -1;
    let replaced = false;
    const nth = sub.nth || 1;
    while (m) {
      const off = m.index;
      const len = m[0].length;
      const end = off + len;
      if (len === 0 && off === prevEnd) {
        // GNU: no empty match right after the previous match
        if (off >= ps.length) break;
        m = find(off + 1);
        continue;
      }
      count++;
      out.add(ps.slice(start, off));
      if (count < nth) out.add(m[0]);
      else {
        out.add(sub.hasCase ? expandCase(sub, m) : expand(sub, m));
        replaced = true;
      }
      start = end;
      prevEnd = end;
      if (out.length + this.hold.length > this.maxSpace) throw valueTooBig("sed's pattern space");
      if (replaced && !sub.global) break;
      if (len === 0) {
        if (end >= ps.length) break;
        m = find(end + 1);
      } else m = find(end);
    }
    if (!replaced) return;
    out.add(ps.slice(start));
    if (out.length + this.hold.length > this.maxSpace) throw valueTooBig("sed's pattern space");
    this.ps = out.join();
    this.tflag = true;
    if (sub.print) this.out.putLine(this.ps, this.psNl, this.delim);
    if (sub.out) this.wout(sub.out.name).putLine(this.ps, this.psNl, this.delim);
  }
}

/** GNU's backup name: every `*` in SUFFIX is the file's base name, else name + SUFFIX. */
function backupName(name: string, suffix: string): string {
  const slash = name.lastIndexOf('/');
  const dir = slash >= 0 ? name.slice(0, slash + 1) : '';
  const base = name.slice(slash + 1);
  if (!suffix.includes('*')) return name + suffix;
  const b = suffix.split('*').join(base);
  return b.includes('/') ? b : dir + b;
}

/** A script of one `s/RE/REPL/g` (no address, no p, w, case conversion or M) whose RE stays within a line. */
function bulkScript(prog: Program, o: ExecOptions, delim: string): Subst | null {
  if (o.quiet || prog.cmds.length !== 1) return null;
  const c = prog.cmds[0]!;
  const sub = c.subst;
  if (c.cmd !== 's' || c.a1 || c.bang || !sub) return null;
  const re = sub.rx.re;
  if (!re || !sub.global || sub.nth > 1 || sub.hasCase || sub.print || sub.out || segmented.has(re)) return null;
  return lineLocal(re, delim) ? sub : null;
}
