// fuzz-diff generator for the checksum commands (coreutils 9.1):  node test/gnu/fuzz-diff.mjs hashes [seed] [cases]
// md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum, b2sum (-l), cksum (-a, --untagged,
// --base64, --raw), sum (-r, -s): files with odd names (backslash, newline), stdin, --tag, -z, -b/-t,
// and -c on check files that mix good, bad, missing, malformed and BSD-tagged lines with --status,
// --quiet, -w, --strict, --ignore-missing. A file of 600 KB crosses the read chunks.
// Left out (documented deviation): BLAKE2b lengths other than 512 bits (node:crypto computes
// blake2b512 only), in -l and in the digest lengths of check lines (whose truncated hashes
// `h.slice(1)` stay: malformed for every tool).
import { createHash } from 'node:crypto';

export default ({ rnd, pick }) => {
  const bytes = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(rnd(3) ? 97 + rnd(26) : rnd(256));
    return s;
  };
  const files = {
    a: 'hello\n',
    b: bytes(3000),
    big: bytes(600 * 1024),
    empty: '',
    'sp ace': 'x y\n',
    'back\\slash': 'bs\n',
    'new\nline': 'nl\n',
    d: null,
  };
  const algos = { md5sum: 'md5', sha1sum: 'sha1', sha224sum: 'sha224', sha256sum: 'sha256', sha384sum: 'sha384', sha512sum: 'sha512', b2sum: 'blake2b512' };
  const digest = (algo, name) => createHash(algo).update(Buffer.from(files[name], 'latin1')).digest('hex');
  const escName = (n) => (/[\\\n]/.test(n) ? ['\\', n.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')] : ['', n]);
  const checkFile = (tool) => {
    const algo = algos[tool];
    const tag = { md5sum: 'MD5', sha1sum: 'SHA1', sha224sum: 'SHA224', sha256sum: 'SHA256', sha384sum: 'SHA384', sha512sum: 'SHA512', b2sum: 'BLAKE2b' }[tool];
    let s = '';
    for (let i = 1 + rnd(5); i > 0; i--) {
      const name = pick(['a', 'b', 'big', 'empty', 'sp ace', 'back\\slash', 'new\nline', 'missing', 'd']);
      const h = files[name] !== undefined && files[name] !== null ? digest(algo, name) : 'ab'.repeat({ md5: 16, sha1: 20, sha224: 28, sha256: 32, sha384: 48, sha512: 64, blake2b512: 64 }[algo]);
      const [pre, esc] = escName(name);
      s += pick([
        () => `${pre}${h}  ${esc}\n`,
        () => `${pre}${h} *${esc}\n`,
        () => `${pre}${tag} (${esc}) = ${h}\n`,
        () => `${h.replace(/^./, (c) => (c === '0' ? '1' : '0'))}  ${esc}\n`,
        () => `${h.toUpperCase()}  ${esc}\n`,
        () => pick(['garbage line\n', '\n', `${h} ${esc}\n`, `${h}  \n`, `${h.slice(1)}  ${esc}\n`, '#comment\n', `${h}\t${esc}\n`]),
        () => `${pre}${h}  ${esc}`,
      ])();
    }
    return s;
  };
  return {
    files,
    fresh: true, // the check file `chk` is written per case
    setup() {},
    gen() {
      const tool = pick(['md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'sum', 'md5sum', 'sha256sum']);
      const args = [];
      let stdin = rnd(2) ? bytes(rnd(200)) : '';
      if (tool === 'sum') {
        for (let i = rnd(3); i > 0; i--) args.push(pick(['-r', '-s', '--sysv', '-x']));
      } else if (tool === 'cksum') {
        for (let i = rnd(3); i > 0; i--) {
          args.push(...pick([['-a', pick(['md5', 'sha1', 'sha256', 'sha512', 'blake2b', 'crc', 'sysv', 'bsd', 'sm3x'])], ['--untagged'], ['--tag'], ['-l', pick(['512', '7'])], ['--base64'], ['--raw'], ['-z']]));
        }
      } else if (rnd(3) === 0) {
        args.push('-c');
        for (let i = rnd(4); i > 0; i--) args.push(pick(['--status', '--quiet', '-w', '--strict', '--ignore-missing', '-z', '--tag']));
        const check = checkFile(tool);
        files.chk = check;
        if (rnd(2)) stdin = check;
        args.push(pick(['-', 'chk', 'chk', 'missing']));
        if (tool === 'b2sum' && rnd(3) === 0) args.push('-l', '512');
        return { argv: [tool, ...args], stdin };
      } else {
        for (let i = rnd(3); i > 0; i--) args.push(...pick([['--tag'], ['-z'], ['-b'], ['-t'], ['--binary'], ['--text'], ['--status'], ['--strict']]));
        if (tool === 'b2sum' && rnd(2)) args.push('-l', pick(['512', '7', '1024', 'x']));
      }
      for (let i = rnd(4); i > 0; i--) args.push(pick(['a', 'b', 'big', 'empty', 'sp ace', 'back\\slash', 'new\nline', 'd', 'missing', '-']));
      return { argv: [tool, ...args], stdin };
    },
  };
};
