import { defineCommand, OptionError, UsageError } from '../../src/command/index.js';
import { VfsError } from '../../src/vfs/index.js';
import { parseDate, type Timestamp } from '../../src/gnulib/date.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { quoteAlways } from '../../src/gnulib/quote.js';
import { formatDate } from './format.js';

const ISO: Record<string, string> = {
  date: '%Y-%m-%d', hours: '%Y-%m-%dT%H%:z', minutes: '%Y-%m-%dT%H:%M%:z', seconds: '%Y-%m-%dT%H:%M:%S%:z', ns: '%Y-%m-%dT%H:%M:%S,%N%:z',
};
const RFC3339: Record<string, string> = { date: '%Y-%m-%d', seconds: '%Y-%m-%d %H:%M:%S%:z', ns: '%Y-%m-%d %H:%M:%S.%N%:z' };
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * GNU date (coreutils 9.1), display only, always UTC (nosh's TZ): -d STRING (the date
 * strings of src/gnulib/date.ts, plus month names: 'Jan 2 2024', '2 Jan 2024 10:00', RFC
 * 5322 'Tue, 02 Jan 2024 03:04:05 +0100'), -f FILE, -r FILE, -u, +FORMAT (GNU's flags, widths,
 * %N, %:z, %q, %P), -I[FMT], -R, --rfc-3339. Setting the clock (-s, MMDDhhmm operand) is refused.
 */
export default defineCommand({
  name: 'date',
  summary: 'Display date and time in the given FORMAT. (Setting the clock is refused: nosh is a file workspace.)',
  usage: '[OPTION]... [+FORMAT]',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'd', short: 'd', long: 'date', kind: 'string', arg: 'STRING', help: "display time described by STRING, not 'now'" },
    { key: 'debug', long: 'debug', help: 'annotate the parsed date (accepted, prints nothing more)' },
    { key: 'f', short: 'f', long: 'file', kind: 'string', arg: 'DATEFILE', help: 'like --date; once for each line of DATEFILE' },
    { key: 'I', short: 'I', long: 'iso-8601', kind: 'optional', arg: 'FMT', value: 'date', choices: { words: ['hours', 'minutes', 'date', 'seconds', 'ns'] },
      help: "output date/time in ISO 8601 format. FMT='date' for date only (the default), 'hours', 'minutes', 'seconds', or 'ns'" },
    { key: 'R', short: 'R', long: 'rfc-email', help: 'output date and time in RFC 5322 format' },
    { key: 'rfc3339', long: 'rfc-3339', kind: 'string', arg: 'FMT', choices: { words: ['date', 'seconds', 'ns'] }, help: "output date/time in RFC 3339 format. FMT='date', 'seconds', or 'ns'" },
    { key: 'r', short: 'r', long: 'reference', kind: 'string', arg: 'FILE', help: 'display the last modification time of FILE' },
    { key: 's', short: 's', long: 'set', kind: 'string', arg: 'STRING', help: 'set time described by STRING (refused)' },
    { key: 'u', short: 'u', long: 'utc', help: 'print or set Coordinated Universal Time (UTC)' },
    { key: 'u', long: 'universal', help: 'same as --utc' },
  ],
  gnuLongOptions: ['date', 'debug', 'file', 'iso-8601', 'reference', 'resolution', 'rfc-email', 'rfc-822', 'rfc-2822', 'rfc-3339', 'set', 'uct', 'utc', 'universal', 'help', 'version'],
  async run(ctx) {
    const v = ctx.values;
    let format: string | undefined;
    let formats = 0;
    for (const o of ctx.opts.order) {
      if (o.key === 'I' || o.key === 'R' || o.key === 'rfc3339') {
        if (++formats > 1) throw new OptionError('multiple output formats specified', false);
        format = o.key === 'R' ? '%a, %d %b %Y %H:%M:%S %z' : o.key === 'I' ? ISO[o.parsed as string ?? o.value] ?? ISO.date : RFC3339[o.parsed as string ?? o.value];
      }
    }
    const sources = [v.d, v.f, v.r].filter((x) => x !== undefined).length;
    if (sources > 1) throw new UsageError('the options to specify dates for printing are mutually exclusive');
    if (v.s !== undefined) {
      await ctx.warn('cannot set date: Operation not permitted (nosh does not set the clock)');
      return 1;
    }
    const ops = [...ctx.operands];
    if (ops.length && ops[0]!.startsWith('+')) {
      if (ops.length > 1) throw new UsageError(`extra operand ${quoteAlways(ops[1]!)}`);
      if (formats) throw new OptionError('multiple output formats specified', false);
      format = ops[0]!.slice(1);
    } else if (ops.length) {
      if (ops.length > 1) throw new UsageError(`extra operand ${quoteAlways(ops[1]!)}`);
      if (v.d !== undefined || v.f !== undefined || v.r !== undefined) {
        throw new UsageError(`the argument ${quoteAlways(ops[0]!)} lacks a leading '+';\nwhen using an option to specify date(s), any non-option\nargument must be a format string beginning with '+'`);
      }
      if (!/^\d{8}(\d{2}|\d{4})?(\.\d{2})?$/.test(ops[0]!)) {
        await ctx.warn(`invalid date ${gnuQuote(ops[0]!)}`);
        return 1;
      }
      await ctx.warn('cannot set date: Operation not permitted (nosh does not set the clock)');
      return 1;
    }
    const fmt = format ?? '%a %b %e %H:%M:%S %Z %Y';
    const show = (t: Timestamp) => ctx.stdout.write(Buffer.from(formatDate(fmt, t.sec, t.nsec) + '\n', 'latin1'));
    if (v.r !== undefined) {
      try {
        const t = ctx.fs.timesNs(v.r, ctx.cwd, true).mtime;
        const sec = Number(t / 1000000000n);
        let nsec = Number(t % 1000000000n);
        if (nsec < 0) nsec += 1e9;
        await show({ sec: nsec && t < 0n ? sec - 1 : sec, nsec });
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await ctx.warn(`${v.r}: ${e.reason}`);
        return 1;
      }
      return 0;
    }
    if (v.f !== undefined) {
      let data: Buffer;
      try {
        data = v.f === '-' ? await ctx.stdin.readAll() : ctx.fs.readFile(v.f, ctx.cwd);
      } catch (e) {
        if (!(e instanceof VfsError)) throw e;
        await ctx.warn(`${v.f}: ${e.reason}`);
        return 1;
      }
      let ok = true;
      const lines = data.toString('latin1').split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      for (const line of lines) {
        const t = parse(line);
        if (!t) {
          await ctx.warn(`invalid date ${gnuQuote(Buffer.from(line, 'latin1').toString('utf8'))}`);
          ok = false;
        } else await show(t);
      }
      return ok ? 0 : 1;
    }
    if (v.d !== undefined) {
      const t = parse(v.d);
      if (!t) {
        await ctx.warn(`invalid date ${gnuQuote(v.d)}`);
        return 1;
      }
      await show(t);
      return 0;
    }
    const now = Date.now();
    await show({ sec: Math.floor(now / 1000), nsec: (now % 1000) * 1e6 });
    return 0;
  },
});

/** Month-name forms rewritten to ISO, then parseDate. */
function parse(text: string): Timestamp | null {
  let s = text.trim().toLowerCase();
  const mon = (w: string) => MONTHS.indexOf(w.slice(0, 3)) + 1;
  const iso = (y: string, m: number, d: string, rest: string) => `${y}-${String(m).padStart(2, '0')}-${d.padStart(2, '0')}${rest ? ' ' + rest.trim() : ''}`;
  // Optional weekday, then '2 Jan 2024 [rest]' or 'Jan 2[,] 2024 [rest]'.
  s = s.replace(/^(sun|mon|tue|wed|thu|fri|sat)[a-z]*,?\s+/, '');
  let m = /^(\d{1,2})\s+([a-z]{3,})\.?\s+(\d{4})(?:\s+(.*))?$/.exec(s);
  if (m && mon(m[2]!) > 0) s = iso(m[3]!, mon(m[2]!), m[1]!, m[4] ?? '');
  else if ((m = /^([a-z]{3,})\.?\s+(\d{1,2}),?\s+(\d{4})(?:\s+(.*))?$/.exec(s)) && mon(m[1]!) > 0) s = iso(m[3]!, mon(m[1]!), m[2]!, m[4] ?? '');
  // 'HH:MM:SS +0100' after a date: the zone joins the time, as parseDate reads it.
  s = s.replace(/(\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)\s+([+-]\d{2}:?\d{2}|utc|gmt|z)$/, '$1$2');
  return parseDate(s);
}
