/**
 * Deterministic data sets: seeded random text written into a folder outside the repo.
 * The same seed and sizes always give the same bytes, so every run (and every machine)
 * measures the same work. A finished set is marked and reused by later runs.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bump when the generators change, so old cached sets are not reused. */
const VERSION = 1;
const FIXED_TIME = new Date('2024-01-02T03:04:05Z');

export interface DataSizes {
  /** Files in the search tree (grep -r). */
  smallTreeFiles: number;
  /** Files in the big tree (find -name). */
  bigTreeFiles: number;
  /** Bytes of the big text file. */
  bigFileBytes: number;
  /** Bytes of the CSV file. */
  csvBytes: number;
}

export const FULL_SIZES: DataSizes = { smallTreeFiles: 1000, bigTreeFiles: 20_000, bigFileBytes: 100 * 1024 * 1024, csvBytes: 10 * 1024 * 1024 };
export const QUICK_SIZES: DataSizes = { smallTreeFiles: 1000, bigTreeFiles: 2_000, bigFileBytes: 2 * 1024 * 1024, csvBytes: 2 * 1024 * 1024 };

/** Paths inside the data root, as every system sees them (the root is `/`). */
export const P = {
  lat: '/lat',
  small: 'small.txt',
  medium: 'medium.txt',
  dir: 'dir',
  tree1k: '/tree1k',
  tree20k: '/tree20k',
  big: '/big/big.txt',
  csv: '/big/data.csv',
  out: '/out',
};

/** mulberry32: a small, fast, seeded PRNG (floats in [0, 1)). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LETTERS = 'etaoinshrdlcumwfgypbvkjxqz';

/** A vocabulary of pseudo-words; common letters are likelier, as in text. */
function vocabulary(rand: () => number, size: number): string[] {
  const words = new Set<string>(['the', 'a', 'and', 'of', 'to', 'in', 'is', 'data', 'file', 'agent']);
  while (words.size < size) {
    const len = 2 + Math.floor(rand() * 9);
    let w = '';
    for (let i = 0; i < len; i++) w += LETTERS[Math.floor(rand() * rand() * LETTERS.length)];
    words.add(w);
  }
  return [...words];
}

/** Text lines of 3..16 words, Zipf-like word choice; `needle` appears in about 1 line of 60. */
export class TextGen {
  private readonly rand: () => number;
  private readonly vocab: string[];
  constructor(seed: number) {
    this.rand = prng(seed);
    this.vocab = vocabulary(this.rand, 4096);
  }
  line(): string {
    const r = this.rand;
    const n = 3 + Math.floor(r() * 14);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      const x = r();
      parts.push(this.vocab[Math.floor(x * x * x * this.vocab.length)]!);
    }
    if (r() < 1 / 60) parts.splice(Math.floor(r() * parts.length), 0, 'needle');
    const s = parts.join(' ');
    return r() < 0.1 ? s[0]!.toUpperCase() + s.slice(1) + '.' : s;
  }
  /** About `bytes` bytes of whole lines. */
  text(bytes: number): string {
    const lines: string[] = [];
    let total = 0;
    while (total < bytes) {
      const l = this.line();
      lines.push(l);
      total += l.length + 1;
    }
    return lines.join('\n') + '\n';
  }
  int(n: number): number {
    return Math.floor(this.rand() * n);
  }
  word(): string {
    return this.vocab[this.int(this.vocab.length)]!;
  }
}

export interface DataSet {
  root: string;
  sizes: DataSizes;
  quick: boolean;
  /** True when this run generated it (false: reused). */
  generated: boolean;
  seconds: number;
}

export function defaultDataDir(quick: boolean): string {
  return join(tmpdir(), `nosh-bench-v${VERSION}-${quick ? 'quick' : 'full'}`);
}

/** Generate (or reuse) the data set in `root`. */
export function ensureData(root: string, quick: boolean, fresh: boolean, log: (s: string) => void): DataSet {
  const sizes = quick ? QUICK_SIZES : FULL_SIZES;
  const marker = join(root, '.complete');
  const want = JSON.stringify({ VERSION, sizes });
  const t0 = Date.now();
  if (!fresh && fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === want) {
    resetOut(root);
    return { root, sizes, quick, generated: false, seconds: 0 };
  }
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  log(`generating data set in ${root} (${quick ? 'quick sizes' : 'full sizes'})`);
  genLatency(root);
  genTree(join(root, P.tree1k), sizes.smallTreeFiles, 11, 300, 3000);
  genTree(join(root, P.tree20k), sizes.bigTreeFiles, 12, 20, 120);
  fs.mkdirSync(join(root, 'big'), { recursive: true });
  genBigText(join(root, P.big), sizes.bigFileBytes, 13);
  genCsv(join(root, P.csv), sizes.csvBytes, 14);
  resetOut(root);
  fs.writeFileSync(marker, want);
  return { root, sizes, quick, generated: true, seconds: (Date.now() - t0) / 1000 };
}

function resetOut(root: string): void {
  fs.rmSync(join(root, P.out), { recursive: true, force: true });
  fs.mkdirSync(join(root, P.out), { recursive: true });
}

function genLatency(root: string): void {
  const g = new TextGen(10);
  const lat = join(root, P.lat);
  fs.mkdirSync(join(lat, P.dir), { recursive: true });
  fs.writeFileSync(join(lat, P.small), g.text(1024));
  fs.writeFileSync(join(lat, P.medium), g.text(64 * 1024));
  for (let i = 0; i < 40; i++) {
    const f = join(lat, P.dir, `${g.word()}-${String(i).padStart(2, '0')}.txt`);
    fs.writeFileSync(f, g.text(50 + g.int(5000)));
    fs.utimesSync(f, FIXED_TIME, FIXED_TIME);
  }
  for (const p of [join(lat, P.small), join(lat, P.medium), join(lat, P.dir), lat]) fs.utimesSync(p, FIXED_TIME, FIXED_TIME);
}

/** `files` files in a tree 3 levels deep (d??/s?/f???.txt), each minBytes..maxBytes of text. */
function genTree(dir: string, files: number, seed: number, minBytes: number, maxBytes: number): void {
  const g = new TextGen(seed);
  const perLeaf = files >= 10_000 ? 100 : 10;
  const leaves = Math.ceil(files / perLeaf);
  let made = 0;
  for (let leaf = 0; leaf < leaves && made < files; leaf++) {
    const d = join(dir, `d${String(Math.floor(leaf / 10)).padStart(2, '0')}`, `s${leaf % 10}`);
    fs.mkdirSync(d, { recursive: true });
    for (let i = 0; i < perLeaf && made < files; i++, made++) {
      fs.writeFileSync(join(d, `f${String(i).padStart(3, '0')}.txt`), g.text(minBytes + g.int(maxBytes - minBytes)));
    }
  }
}

function genBigText(file: string, bytes: number, seed: number): void {
  const g = new TextGen(seed);
  const fd = fs.openSync(file, 'w');
  try {
    let written = 0;
    while (written < bytes) {
      const chunk = g.text(Math.min(1 << 20, bytes - written));
      fs.writeSync(fd, chunk);
      written += chunk.length;
    }
  } finally {
    fs.closeSync(fd);
  }
}

const CITIES = ['Paris', 'Lyon', 'Berlin', 'Oslo', 'Lima', 'Quito', 'Accra', 'Hanoi', 'Perth', 'Porto', 'Riga', 'Kyiv'];

function genCsv(file: string, bytes: number, seed: number): void {
  const g = new TextGen(seed);
  const fd = fs.openSync(file, 'w');
  try {
    let written = 0;
    let id = 0;
    fs.writeSync(fd, 'id,name,city,amount,date\n');
    while (written < bytes) {
      const rows: string[] = [];
      for (let i = 0; i < 5000; i++) {
        id++;
        const day = 1 + g.int(28);
        rows.push(`${id},${g.word()},${CITIES[g.int(CITIES.length)]},${g.int(100000) / 100},2024-${String(1 + g.int(12)).padStart(2, '0')}-${String(day).padStart(2, '0')}`);
      }
      const chunk = rows.join('\n') + '\n';
      fs.writeSync(fd, chunk);
      written += chunk.length;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Every regular file under `dir` as [relative path, content] (to load an in-memory system). */
export function readTree(dir: string, prefix: string): [string, Buffer][] {
  const out: [string, Buffer][] = [];
  const walk = (d: string, v: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${v}/${e.name}`);
      else if (e.isFile()) out.push([`${v}/${e.name}`, fs.readFileSync(join(d, e.name))]);
    }
  };
  walk(dir, prefix);
  return out;
}
