/**
 * GNU expand-common (coreutils 9.1): the -t tab stop list of expand and unexpand (N, a list
 * of ascending columns, a last '/N' repeating every N, or '+N' every N after the last stop),
 * and the input files read as one stream (a line may go on into the next file).
 */
import type { CommandContext } from '../command/types.js';
import { VfsError } from '../vfs/index.js';
import { FatalError } from './text-lines.js';
import { gnuQuote } from './gnu-number.js';
import { quoteNameColon } from './quote.js';
import { inputOperands, openInput } from './helpers.js';

const UINTMAX = (1n << 64n) - 1n;
/** Columns past this are beyond any output nosh returns. */
const CAP = BigInt(Number.MAX_SAFE_INTEGER);
const num = (v: bigint) => Number(v > CAP ? CAP : v);

export class TabStops {
  private list: bigint[] = [];
  private extend = 0n;
  private increment = 0n;
  private size = 0;
  private stops: number[] = [];
  private ext = 0;
  private inc = 0;

  /** parse_tab_stops: GNU reports each problem it meets, then exits (FatalError holding them all). */
  parse(s: string): void {
    const errors: string[] = [];
    let have = false;
    let val = 0n;
    let extendVal = false;
    let incrementVal = false;
    const b = Buffer.from(s, 'utf8');
    const rest = (i: number) => gnuQuote(b.subarray(i).toString('utf8'));
    const setExtend = (v: bigint) => {
      const ok = !this.extend;
      if (!ok) errors.push("'/' specifier only allowed with the last value");
      this.extend = v;
      return ok;
    };
    const setIncrement = (v: bigint) => {
      const ok = !this.increment;
      if (!ok) errors.push("'+' specifier only allowed with the last value");
      this.increment = v;
      return ok;
    };
    let ok = true;
    for (let i = 0; i < b.length; i++) {
      const c = b[i]!;
      if (c === 0x2c || c === 0x20 || c === 0x09) {
        if (have) {
          if (extendVal ? !setExtend(val) : incrementVal ? !setIncrement(val) : (this.list.push(val), false)) {
            ok = false;
            break;
          }
        }
        have = false;
      } else if (c === 0x2f) {
        if (have) {
          errors.push(`'/' specifier not at start of number: ${rest(i)}`);
          ok = false;
        }
        extendVal = true;
        incrementVal = false;
      } else if (c === 0x2b) {
        if (have) {
          errors.push(`'+' specifier not at start of number: ${rest(i)}`);
          ok = false;
        }
        incrementVal = true;
        extendVal = false;
      } else if (c >= 0x30 && c <= 0x39) {
        if (!have) {
          val = 0n;
          have = true;
        }
        val = val * 10n + BigInt(c - 0x30);
        if (val > UINTMAX) {
          let j = i;
          while (j > 0 && b[j - 1]! >= 0x30 && b[j - 1]! <= 0x39) j--;
          let e = i;
          while (e < b.length && b[e]! >= 0x30 && b[e]! <= 0x39) e++;
          errors.push(`tab stop is too large ${gnuQuote(b.subarray(j, e).toString('utf8'))}`);
          ok = false;
          val &= UINTMAX;
          i = e - 1;
        }
      } else {
        errors.push(`tab size contains invalid character(s): ${rest(i)}`);
        ok = false;
        break;
      }
    }
    if (ok && have) {
      if (extendVal) ok = setExtend(val) && ok;
      else if (incrementVal) ok = setIncrement(val) && ok;
      else this.list.push(val);
    }
    if (!ok) throw new FatalError(errors.join('\n'));
  }

  /** finalize_tab_stops (with validate_tab_stops' errors). */
  finish(): void {
    let prev = 0n;
    for (const t of this.list) {
      if (t === 0n) throw new FatalError('tab size cannot be 0');
      if (t <= prev) throw new FatalError('tab sizes must be ascending');
      prev = t;
    }
    if (this.increment && this.extend) throw new FatalError("'/' specifier is mutually exclusive with '+'");
    if (this.list.length === 0) this.size = num(this.extend || this.increment || 8n);
    else if (this.list.length === 1 && !this.extend && !this.increment) this.size = num(this.list[0]!);
    else this.size = 0;
    this.stops = this.list.map(num);
    this.ext = num(this.extend);
    this.inc = num(this.increment);
  }

  /** get_next_tab_column: the next stop after `column`, or -1 past the last one (last_tab). `idx` is GNU's tab_index. */
  next(column: number, idx: { i: number }): number {
    if (this.size) return column + (this.size - (column % this.size));
    for (; idx.i < this.stops.length; idx.i++) if (column < this.stops[idx.i]!) return this.stops[idx.i]!;
    if (this.ext) return column + (this.ext - (column % this.ext));
    if (this.inc) {
      const end = this.stops[this.stops.length - 1]!;
      return column + (this.inc - ((column - end) % this.inc));
    }
    return -1;
  }
}

/** The -t values and the obsolete-free options, parsed and finished. */
export function tabStops(values: string[]): TabStops {
  const t = new TabStops();
  for (const v of values) t.parse(v);
  t.finish();
  return t;
}

/**
 * All input files as one byte stream (GNU's next_file): a file that cannot be opened or read
 * is reported where it comes and skipped; `failed.value` says one was.
 */
export async function* joinedInputs(ctx: CommandContext, failed: { value: boolean }): AsyncGenerator<Uint8Array> {
  for (const name of inputOperands(ctx.operands)) {
    try {
      yield* openInput(ctx, name) as AsyncIterable<Uint8Array>;
    } catch (e) {
      if (!(e instanceof VfsError)) throw e;
      await ctx.warn(`${quoteNameColon(name)}: ${e.reason}`);
      failed.value = true;
    }
  }
}
