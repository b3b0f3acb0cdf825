/**
 * getopt_long as GNU does it, driven by the declaration: bundling, attached values, '--',
 * permutation, unambiguous long prefixes, and what GNU tools add around it — values checked
 * while getopt walks (the first bad one in argv order is reported), argmatch choices, digit
 * options, obsolete forms, options ending at the first operand, conflicts, extra operands.
 */
import type { CommandDef, FlagSpec, ObsoleteMatch } from '../types.js';
import { argmatchResult, gnuQuote } from './argmatch.js';
import { OptionError, UsageError } from './errors.js';
import { ParsedOptions } from './parsed.js';
import type { OptionItem } from '../types.js';

export const HELP_FLAG: FlagSpec = { key: 'help', long: 'help', help: 'display this help and exit' };
export const VERSION_FLAG: FlagSpec = { key: 'version', long: 'version', help: 'output version information and exit' };

/** The options getopt sees: the command's own, then --help and --version, as every GNU tool has. */
export function allFlags(def: CommandDef): FlagSpec[] {
  return [...def.flags, HELP_FLAG, VERSION_FLAG];
}

export function parseArgs(def: CommandDef, args: string[]): { opts: ParsedOptions; operands: string[] } {
  return new Walk(def).run(args);
}

class Walk {
  private readonly flags: FlagSpec[];
  private readonly opts = new ParsedOptions();
  private readonly operands: string[] = [];
  /** --help or --version met: values are no longer checked (GNU would have printed and exited). */
  private info = false;
  /** The digit option being accumulated (uniq -12, grep -2). */
  private digitItem: OptionItem | undefined;
  private digitWord = -1;
  private readonly conflictSeen = new Map<number, boolean>();

  constructor(private readonly def: CommandDef) {
    this.flags = allFlags(def);
  }

  run(args: string[]): { opts: ParsedOptions; operands: string[] } {
    let i = 0;
    const lead = this.def.obsoleteLeading?.(args);
    if (lead) {
      if (this.obsolete(lead)) return this.result();
      i = lead.words;
    }
    for (; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === '--') {
        this.opts.dashDash = this.operands.length;
        for (const op of args.slice(i + 1)) this.operand(op);
        break;
      }
      if (arg.startsWith('--')) {
        i = this.long(args, i);
        continue;
      }
      if (arg.startsWith('-') && arg.length > 1 && !(this.def.numericOperands && /^-[.\d]/.test(arg))) {
        i = this.shorts(args, i);
        continue;
      }
      const ob = this.info ? null : this.def.obsoleteOperand?.(args, i);
      if (ob) {
        if (this.obsolete(ob)) break;
        i += ob.words - 1;
        continue;
      }
      this.operand(arg);
      if (this.def.optionsEnd === 'first-operand') {
        for (const op of args.slice(i + 1)) this.operand(op);
        break;
      }
    }
    return this.result();
  }

  private result(): { opts: ParsedOptions; operands: string[] } {
    return { opts: this.opts, operands: this.operands };
  }

  /** Adds an obsolete form's items; true when GNU stops there. */
  private obsolete(m: ObsoleteMatch): boolean {
    for (const it of m.items) {
      const spec = this.flags.find((f) => `-${f.short}` === it.flag);
      if (!spec) throw new Error(`${this.def.name}: obsolete form names an undeclared flag ${it.flag}`);
      this.add(spec, it.value ?? spec.value ?? 'true', it.flag);
    }
    return m.stop === true;
  }

  private operand(op: string): void {
    const max = this.def.maxOperands;
    if (!this.info && max !== undefined && this.operands.length >= max) throw new UsageError(`extra operand ${gnuQuote(op)}`);
    this.operands.push(op);
  }

  /** One long option at args[i]; returns the index of the last word it took. */
  private long(args: string[], i: number): number {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const flag = findLong(this.flags, name, arg, this.def.gnuLongOptions);
    const kind = flag.kind ?? 'boolean';
    const as = `--${flag.long}`;
    if (kind === 'boolean') {
      if (eq >= 0) throw new UsageError(`option '${as}' doesn't allow an argument`);
      this.add(flag, flag.value ?? 'true', arg);
    } else if (eq >= 0) this.add(flag, arg.slice(eq + 1), as);
    else if (kind === 'optional') this.add(flag, flag.value ?? '', arg);
    else {
      if (i + 1 >= args.length) throw new UsageError(`option '${as}' requires an argument`);
      this.add(flag, args[++i]!, as);
    }
    return i;
  }

  /** A cluster of short options at args[i]; returns the index of the last word it took. */
  private shorts(args: string[], i: number): number {
    const arg = args[i]!;
    for (let j = 1; j < arg.length; j++) {
      const ch = arg[j]!;
      const digits = this.def.digits;
      if (digits && ch >= '0' && ch <= '9') {
        if ('key' in digits) {
          this.digit(digits, ch, i);
          continue;
        }
        if (!this.info) throw digits.reject(ch);
      }
      const flag = this.flags.find((f) => f.short === ch);
      if (!flag) throw new UsageError(`invalid option -- '${ch}'`);
      const kind = flag.kind ?? 'boolean';
      if (kind === 'boolean') {
        this.add(flag, flag.value ?? 'true', `-${ch}`);
        continue;
      }
      const rest = arg.slice(j + 1);
      if (rest !== '') this.add(flag, rest, `-${ch}`);
      else if (kind === 'optional') this.add(flag, flag.value ?? '', `-${ch}`);
      else {
        if (i + 1 >= args.length) throw new UsageError(`option requires an argument -- '${ch}'`);
        this.add(flag, args[++i]!, `-${ch}`);
      }
      break;
    }
    return i;
  }

  /** A digit option: appended to the current run of digits, or the start of a new one. */
  private digit(d: { key: string; accumulate: 'word' | 'run' }, ch: string, word: number): void {
    const spec = this.flags.find((f) => f.key === d.key);
    if (!spec) throw new Error(`${this.def.name}: digits name an undeclared key ${d.key}`);
    const same = this.digitItem !== undefined && (d.accumulate === 'run' ? !this.opts.order.slice(this.opts.order.indexOf(this.digitItem) + 1).some((o) => o.key === d.key) : this.digitWord === word);
    if (same) {
      const item = this.digitItem!;
      item.value += ch;
      this.check(item);
      return;
    }
    this.digitWord = word;
    this.digitItem = this.add(spec, ch, `-${ch}`);
  }

  /** Records one option and checks it as GNU does at that point of the walk. */
  private add(spec: FlagSpec, value: string, flag: string): OptionItem {
    const item: OptionItem = { key: spec.key, value, flag, spec, operandsBefore: this.operands.length };
    this.opts.order.push(item);
    if (spec.key === 'help' || spec.key === 'version') this.info = true;
    this.check(item);
    if (!this.info) this.conflicts(item);
    return item;
  }

  private check(item: OptionItem): void {
    const spec = item.spec!;
    let v = item.value;
    if (this.info || (!spec.choices && !spec.parse)) {
      item.parsed = v;
      return;
    }
    const at = { flag: item.flag, option: spec.long ? `--${spec.long}` : `-${spec.short}` };
    // A boolean flag sharing a key with a choice flag (ls -F and --classify) gives its value as is.
    if (spec.choices && (spec.kind ?? 'boolean') !== 'boolean') {
      const r = argmatchResult(v, spec.choices.words, at.option, spec.choices.values);
      // gnulib's argmatch_die is usage(EXIT_FAILURE): status 1 whatever the command's usage status.
      if ('error' in r) throw new OptionError(r.error, true, 1);
      v = r.value;
    }
    item.parsed = spec.parse ? spec.parse(v, at) : v;
  }

  private conflicts(item: OptionItem): void {
    this.def.conflicts?.forEach((c, n) => {
      if (!c.keys.includes(item.key)) return;
      if (this.conflictSeen.get(n)) throw new UsageError(c.message);
      this.conflictSeen.set(n, true);
    });
  }
}

/** `arg` is the whole word: getopt names it, "=value" included, when it is unknown or ambiguous. */
function findLong(flags: FlagSpec[], name: string, arg: string, gnuLong?: readonly string[]): FlagSpec {
  const exact = flags.find((f) => f.long === name);
  if (exact) return exact;
  if (gnuLong) {
    // getopt_long over GNU's whole table: an abbreviation may also match options nosh does not offer.
    const hits = gnuLong.includes(name) ? [name] : gnuLong.filter((l) => l.startsWith(name));
    const ours = hits.map((l) => flags.find((f) => f.long === l));
    // Options nosh lacks count one each: GNU's table gives them different values.
    const distinct = new Set(ours.map((f, k) => (f ? f.key + '\0' + (f.value ?? '') : `\0${hits[k]}`)));
    if (hits.length > 1 && distinct.size > 1) {
      throw new UsageError(`option '${arg}' is ambiguous; possibilities: ${hits.map((l) => `'--${l}'`).join(' ')}`);
    }
    if (ours[0]) return ours[0];
    throw new UsageError(`unrecognized option '${arg}'`);
  }
  const prefixed = flags.filter((f) => f.long?.startsWith(name));
  const distinct = new Set(prefixed.map((f) => f.key + '\0' + (f.value ?? '')));
  if (name !== '' && prefixed.length > 0 && distinct.size === 1) return prefixed[0]!;
  if (prefixed.length > 1 && name !== '') {
    const list = prefixed.map((f) => `'--${f.long}'`).join(' ');
    throw new UsageError(`option '${arg}' is ambiguous; possibilities: ${list}`);
  }
  throw new UsageError(`unrecognized option '${arg}'`);
}
