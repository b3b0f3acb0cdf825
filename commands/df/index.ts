import { defineCommand } from '../../src/command/index.js';

/**
 * df for the zone: one line, its quota as the file system (name: the quota's, e.g.
 * `user:alice`; mounted on `/`, the zone's root). Size is the quota's limit, Used what it
 * counts, Avail the rest; -i shows its file count limit. A zone without a quota shows `-`
 * for what it does not know. FILE operands name the same one file system. Never the host's
 * disks.
 */
export default defineCommand({
  name: 'df',
  summary: "Show the zone's quota as a file system: size, used, available (nosh has no disks to show).",
  usage: '[OPTION]... [FILE]...',
  mutates: false,
  usageStatus: 1,
  flags: [
    { key: 'h', short: 'h', long: 'human-readable', help: 'print sizes in powers of 1024 (e.g., 1023M)' },
    { key: 'H', short: 'H', long: 'si', help: 'print sizes in powers of 1000 (e.g., 1.1G)' },
    { key: 'i', short: 'i', long: 'inodes', help: 'list inode (file count) information instead of block usage' },
    { key: 'k', short: 'k', help: 'like --block-size=1K' },
    { key: 'P', short: 'P', long: 'portability', help: 'use the POSIX output format' },
    { key: 'T', short: 'T', long: 'print-type', help: 'print file system type (nosh)' },
  ],
  async run(ctx) {
    const v = ctx.values;
    for (const f of ctx.operands) {
      if (!ctx.fs.exists(f, ctx.cwd)) {
        await ctx.warn(`${f}: No such file or directory`);
        return 1;
      }
    }
    const q = ctx.fs.quota;
    const name = q?.name ?? 'nosh';
    let cells: string[];
    let header: string[];
    if (v.i) {
      const used = q ? Number(q.counters[q.index + 1] ?? 0n) : undefined;
      const total = q && Number.isFinite(q.maxFiles) ? q.maxFiles : undefined;
      header = ['Filesystem', 'Inodes', 'IUsed', 'IFree', 'IUse%'];
      cells = [name, fmtCount(total), fmtCount(used), fmtCount(total !== undefined && used !== undefined ? Math.max(0, total - used) : undefined), pct(used, total)];
    } else {
      const used = q ? Number(q.counters[q.index] ?? 0n) : undefined;
      const total = q ? q.limit : undefined;
      const human = v.h ? 1024 : v.H ? 1000 : 0;
      const size = (n: number | undefined) => (n === undefined ? '-' : human ? humanSize(n, human) : String(Math.ceil(n / 1024)));
      header = ['Filesystem', human ? 'Size' : v.P ? '1024-blocks' : '1K-blocks', 'Used', human ? 'Avail' : 'Available', v.P ? 'Capacity' : 'Use%'];
      cells = [name, size(total), size(used), size(total !== undefined && used !== undefined ? Math.max(0, total - used) : undefined), pct(used, total)];
    }
    if (v.T) {
      header.splice(1, 0, 'Type');
      cells.splice(1, 0, 'nosh');
    }
    header.push('Mounted on');
    cells.push('/');
    const rows = [header, ...ctx.operands.length ? ctx.operands.map(() => cells) : [cells]];
    const widths = header.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    const lines = rows.map((r) => r.map((cell, c) => {
      if (c === r.length - 1) return cell;
      if (c === 0 || (v.T && c === 1)) return cell.padEnd(widths[c]!);
      return cell.padStart(widths[c]!);
    }).join(' '));
    await ctx.stdout.write(lines.join('\n') + '\n');
    return 0;
  },
});

function fmtCount(n: number | undefined): string {
  return n === undefined ? '-' : String(n);
}

function pct(used: number | undefined, total: number | undefined): string {
  if (used === undefined || total === undefined || total === 0) return '-';
  return `${Math.ceil((used * 100) / total)}%`;
}

/** df -h: one decimal below 10, rounded up, as GNU's human_ceiling. */
function humanSize(n: number, base: number): string {
  const units = ['', 'K', 'M', 'G', 'T', 'P', 'E'];
  let u = 0;
  let x = n;
  while (x >= base && u < units.length - 1) {
    x /= base;
    u++;
  }
  if (u === 0) return String(n);
  const s = x < 10 ? (Math.ceil(x * 10) / 10).toFixed(1) : String(Math.ceil(x));
  return (s === '10.0' ? '10' : s) + units[u] + (base === 1000 && u === 1 ? '' : '');
}
