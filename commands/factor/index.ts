import { defineCommand } from '../../src/command/index.js';
import { gnuQuote } from '../../src/gnulib/gnu-number.js';
import { OutBuffer, records } from '../../src/gnulib/text-lines.js';

/**
 * GNU factor (coreutils 9.1): prime factors of each NUMBER (operands, else the
 * whitespace-separated tokens of standard input), any size. Trial division, then
 * Miller-Rabin and Pollard-Brent rho over bigints; a number whose factors rho cannot find
 * within its budget (two prime factors both over about 2^40) is reported as too hard
 * (exit 1), where GNU keeps going.
 */
export default defineCommand({
  name: 'factor',
  summary: 'Print the prime factors of each specified integer NUMBER. If none are specified on the command line, read them from standard input.',
  usage: '[NUMBER]...',
  mutates: false,
  usageStatus: 1,
  numericOperands: false,
  flags: [],
  async run(ctx) {
    const out = new OutBuffer(ctx.stdout);
    let ok = true;
    const one = async (tok: string) => {
      const m = /^[ \t\n\v\f\r]*\+?([0-9]+)$/.exec(tok);
      if (!m) {
        await out.flush();
        await ctx.warn(`${gnuQuote(tok)} is not a valid positive integer`);
        ok = false;
        return;
      }
      const n = BigInt(m[1]!);
      const f = factorize(n);
      if (f === null) {
        await out.flush();
        await ctx.warn(`${n}: too hard to factor here (two large prime factors)`);
        ok = false;
        return;
      }
      await out.push(Buffer.from(`${n}:${f.map((p) => ' ' + p).join('')}\n`));
    };
    if (ctx.operands.length) for (const a of ctx.operands) await one(a);
    else {
      for await (const line of records(ctx.stdin, 0x0a)) {
        for (const tok of line.toString('latin1').split(/[ \t\v\f\r]+/)) if (tok) await one(tok);
      }
    }
    await out.flush();
    return ok ? 0 : 1;
  },
});

const SMALL_PRIMES: number[] = (() => {
  const lim = 10000;
  const sieve = new Uint8Array(lim + 1);
  const ps: number[] = [];
  for (let i = 2; i <= lim; i++) {
    if (sieve[i]) continue;
    ps.push(i);
    for (let j = i * i; j <= lim; j += i) sieve[j] = 1;
  }
  return ps;
})();

function modpow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r;
}

function isPrime(n: bigint): boolean {
  if (n < 2n) return false;
  for (const p of SMALL_PRIMES.slice(0, 25)) {
    const bp = BigInt(p);
    if (n === bp) return true;
    if (n % bp === 0n) return false;
  }
  let d = n - 1n;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  // Deterministic for n < 3.3e24; a strong probable-prime test beyond (as GNU's, in practice).
  const bases = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n, 41n, 43n, 47n, 53n];
  outer: for (const a of bases) {
    if (a % n === 0n) continue;
    let x = modpow(a, d, n);
    if (x === 1n || x === n - 1n) continue;
    for (let r = 1; r < s; r++) {
      x = (x * x) % n;
      if (x === n - 1n) continue outer;
    }
    return false;
  }
  return true;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a;
}

const RHO_BUDGET = 3_000_000;

/** Pollard-Brent: a non-trivial factor of composite n, or null past the budget. */
function rho(n: bigint): bigint | null {
  let steps = 0;
  for (let c = 1n; ; c++) {
    let y = 2n;
    let x = 2n;
    let g = 1n;
    let q = 1n;
    let ys = 2n;
    const m = 128;
    let r = 1;
    do {
      x = y;
      for (let i = 0; i < r; i++) y = (y * y + c) % n;
      let k = 0;
      do {
        ys = y;
        for (let i = 0; i < Math.min(m, r - k); i++) {
          y = (y * y + c) % n;
          q = (q * (x > y ? x - y : y - x)) % n;
        }
        g = gcd(q, n);
        k += m;
        steps += m;
        if (steps > RHO_BUDGET) return null;
      } while (k < r && g === 1n);
      r *= 2;
    } while (g === 1n);
    if (g === n) {
      do {
        ys = (ys * ys + c) % n;
        g = gcd(x > ys ? x - ys : ys - x, n);
      } while (g === 1n);
    }
    if (g !== n) return g;
  }
}

function factorize(n: bigint): bigint[] | null {
  const out: bigint[] = [];
  if (n < 2n) return out;
  for (const p of SMALL_PRIMES) {
    const bp = BigInt(p);
    if (bp * bp > n) break;
    while (n % bp === 0n) {
      out.push(bp);
      n /= bp;
    }
  }
  const stack = n > 1n ? [n] : [];
  const big: bigint[] = [];
  while (stack.length) {
    const m = stack.pop()!;
    if (m === 1n) continue;
    if (isPrime(m)) {
      big.push(m);
      continue;
    }
    const f = rho(m);
    if (f === null) return null;
    stack.push(f, m / f);
  }
  big.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...out, ...big];
}
