/**
 * The magic nosh knows, named as libmagic 5.44 names it (a small part of its database), and
 * libmagic's text classification (encoding.c: ASCII, UTF-8, ISO-8859, extended ASCII; line
 * terminators, very long lines, escapes, overstriking).
 */
export interface Kind {
  text: string;
  mime: string;
  encoding: string;
}

const BIN = 'binary';

export function classify(b: Buffer, size: number, _executable: boolean): Kind {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return png(b);
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) {
    const w = b.length >= 10 ? b.readUInt16LE(6) : 0;
    const h = b.length >= 10 ? b.readUInt16LE(8) : 0;
    return { text: `GIF image data, version ${b.toString('latin1', 3, 6)}, ${w} x ${h}`, mime: 'image/gif', encoding: BIN };
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { text: 'JPEG image data', mime: 'image/jpeg', encoding: BIN };
  if (b.length >= 5 && b.toString('latin1', 0, 5) === '%PDF-') {
    const m = /^%PDF-(\d+\.\d+)/.exec(b.toString('latin1', 0, 16));
    return { text: `PDF document${m ? `, version ${m[1]}` : ''}`, mime: 'application/pdf', encoding: textEncoding(b) ?? BIN };
  }
  if (b.length >= 10 && b[0] === 0x1f && b[1] === 0x8b) return gzip(b, size);
  if (b.length >= 30 && b.toString('latin1', 0, 4) === 'PK\x03\x04') return zip(b);
  if (b.length >= 4 && b.toString('latin1', 0, 4) === '\x7fELF') return elf(b);
  if (b.length >= 263 && b.toString('latin1', 257, 262) === 'ustar') {
    const gnu = b.toString('latin1', 257, 265) === 'ustar  \0';
    return { text: gnu ? 'POSIX tar archive (GNU)' : 'POSIX tar archive', mime: 'application/x-tar', encoding: BIN };
  }
  const t = text(b);
  if (size < 3 && t.text !== 'data') return { text: 'very short file (no magic)', mime: 'application/octet-stream', encoding: BIN };
  return t;
}

function png(b: Buffer): Kind {
  if (b.length < 29 || b.toString('latin1', 12, 16) !== 'IHDR') return { text: 'PNG image data', mime: 'image/png', encoding: BIN };
  const w = b.readUInt32BE(16), h = b.readUInt32BE(20), depth = b[24]!, color = b[25]!, inter = b[28]!;
  const kinds: Record<number, string> = { 0: 'grayscale', 2: '/color RGB', 3: 'colormap', 4: 'gray+alpha', 6: '/color RGBA' };
  const k = kinds[color];
  const c = k === undefined ? '' : k.startsWith('/') ? `${depth}-bit${k}` : `${depth}-bit ${k}`;
  return { text: `PNG image data, ${w} x ${h}, ${c}, ${inter ? 'interlaced' : 'non-interlaced'}`, mime: 'image/png', encoding: BIN };
}

function gzip(b: Buffer, size: number): Kind {
  const flags = b[3]!;
  const parts = ['gzip compressed data'];
  let at = 10;
  if (flags & 4 && b.length >= 12) at += 2 + b.readUInt16LE(10);
  if (flags & 8) {
    const end = b.indexOf(0, at);
    if (end > 0) {
      parts.push(`was "${b.toString('latin1', at, end)}"`);
      at = end + 1;
    }
  }
  const mtime = b.readUInt32LE(4);
  if (mtime) parts.push(`last modified: ${new Date(mtime * 1000).toUTCString().replace(/^(\w+), (\d+) (\w+) (\d+) ([\d:]+) GMT$/, (_, w, d, m, y, t) => `${w} ${m} ${String(Number(d)).padStart(2, ' ')} ${t} ${y}`)}`);
  if (b[8] === 2) parts.push('max compression');
  else if (b[8] === 4) parts.push('max speed');
  const os: Record<number, string> = { 0: 'FAT filesystem (MS-DOS, OS/2, NT)', 3: 'Unix', 7: 'Macintosh', 11: 'NTFS filesystem (NT)' };
  if (os[b[9]!]) parts.push(`from ${os[b[9]!]}`);
  if (size === b.length && b.length >= 18) parts.push(`original size modulo 2^32 ${b.readUInt32LE(b.length - 4)}`);
  return { text: parts.join(', '), mime: 'application/gzip', encoding: BIN };
}

function zip(b: Buffer): Kind {
  const version = b.readUInt16LE(4);
  const method = b.readUInt16LE(8);
  const methods: Record<number, string> = { 0: 'store', 8: 'deflate', 12: 'bzip2', 14: 'lzma', 93: 'zstd', 95: 'xz' };
  const v = `${Math.floor(version / 10)}.${version % 10}`;
  return { text: `Zip archive data, at least v${v} to extract, compression method=${methods[method] ?? method}`, mime: 'application/zip', encoding: BIN };
}

function elf(b: Buffer): Kind {
  const cls = b[4] === 2 ? '64-bit' : '32-bit';
  const le = b[5] !== 2;
  const type = b.length >= 18 ? (le ? b.readUInt16LE(16) : b.readUInt16BE(16)) : 0;
  const types: Record<number, string> = { 1: 'relocatable', 2: 'executable', 3: 'shared object', 4: 'core file' };
  const machine = b.length >= 20 ? (le ? b.readUInt16LE(18) : b.readUInt16BE(18)) : 0;
  const machines: Record<number, string> = { 3: 'Intel 80386', 40: 'ARM', 62: 'x86-64', 183: 'ARM aarch64', 243: 'UCB RISC-V' };
  return {
    text: `ELF ${cls} ${le ? 'LSB' : 'MSB'} ${types[type] ?? 'unknown type'}, ${machines[machine] ?? `unknown arch 0x${machine.toString(16)}`}, version ${b[6]} (SYSV)`,
    mime: type === 1 ? 'application/x-object' : type === 3 ? 'application/x-sharedlib' : 'application/x-executable', encoding: BIN,
  };
}

/** libmagic's text_chars: which bytes may appear in text. */
function isTextByte(c: number): boolean {
  return (c >= 0x20 && c < 0x7f) || c === 7 || c === 8 || c === 9 || c === 10 || c === 11 || c === 12 || c === 13 || c === 0x1b;
}

function textEncoding(b: Buffer): string | null {
  let ascii = true;
  for (const c of b) if (!isTextByte(c)) ascii = false;
  if (ascii) return 'us-ascii';
  return null;
}

function utf8Valid(b: Buffer): boolean {
  for (let i = 0; i < b.length;) {
    const c = b[i]!;
    if (c < 0x80) {
      if (!isTextByte(c)) return false;
      i++;
      continue;
    }
    const n = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
    if (n < 0 || c > 0xf4) return false;
    for (let k = 1; k <= n; k++) if (i + k >= b.length || (b[i + k]! & 0xc0) !== 0x80) return false;
    i += n + 1;
  }
  return true;
}

function text(b: Buffer): Kind {
  let kind: string;
  let enc: string;
  let mimeOverride: string | null = null;
  let body = b;
  const bom = b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
  if (textEncoding(b) === 'us-ascii') {
    kind = 'ASCII text';
    enc = 'us-ascii';
  } else if (utf8Valid(bom ? b.subarray(3) : b)) {
    kind = bom ? 'Unicode text, UTF-8 (with BOM) text' : 'Unicode text, UTF-8 text';
    enc = 'utf-8';
    if (bom) body = b.subarray(3);
  } else {
    let iso = true;
    let ext = true;
    for (const c of b) {
      if (c < 0x80) {
        if (!isTextByte(c)) iso = ext = false;
      } else if (c < 0xa0) iso = false;
    }
    if (iso) {
      kind = 'ISO-8859 text';
      enc = 'iso-8859-1';
    } else if (ext) {
      kind = 'Non-ISO extended-ASCII text';
      enc = 'unknown-8bit';
    } else return { text: 'data', mime: 'application/octet-stream', encoding: BIN };
  }
  const s = body.toString('latin1');
  // What the content is, before how it is written.
  let prefix = '';
  let exec = false;
  const she = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(s);
  if (she) {
    let interp = she[1]!.split('/').pop()!;
    if (interp === 'env' && she[2]) interp = she[2];
    const scripts: Record<string, [string, string, boolean]> = {
      bash: ['Bourne-Again shell script', 'text/x-shellscript', true], sh: ['POSIX shell script', 'text/x-shellscript', true],
      zsh: ["Paul Falstad's zsh script", 'text/x-shellscript', true], python: ['Python script', 'text/x-script.python', true],
      python3: ['Python script', 'text/x-script.python', true], python2: ['Python script', 'text/x-script.python', true],
    };
    const base = interp.replace(/[0-9.]+$/, (m) => (interp.startsWith('python') ? m : ''));
    const hit = scripts[interp] ?? scripts[base];
    if (hit) {
      prefix = hit[0] + ', ';
      mimeOverride = hit[1];
      exec = hit[2];
    } else if (interp === 'perl') return withLines({ text: 'Perl script text executable', mime: 'text/x-perl', encoding: enc }, s, false);
    else if (interp === 'node') return { text: `Node.js script executable, ${kind}`, mime: 'application/javascript', encoding: enc };
  } else if (isJson(s)) return { text: 'JSON text data', mime: 'application/json', encoding: enc };
  else if (/^<\?xml version="([\d.]+)"/.test(s)) {
    prefix = `XML ${/^<\?xml version="([\d.]+)"/.exec(s)![1]} document, `;
    mimeOverride = 'text/xml';
  } else if (/^\s*<!doctype html|^\s*<html[\s>]/i.test(s)) {
    prefix = 'HTML document, ';
    mimeOverride = 'text/html';
  }
  return withLines({ text: prefix + kind + (exec ? ' executable' : ''), mime: mimeOverride ?? 'text/plain', encoding: enc }, s, true);
}

function withLines(k: Kind, s: string, notes: boolean): Kind {
  if (!notes) return k;
  let crlf = 0, cr = 0, lf = 0, longest = 0, cur = 0, esc = false, over = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 13) {
      if (s.charCodeAt(i + 1) === 10) {
        crlf++;
        i++;
      } else cr++;
      longest = Math.max(longest, cur);
      cur = 0;
      continue;
    }
    if (c === 10) {
      lf++;
      longest = Math.max(longest, cur);
      cur = 0;
      continue;
    }
    if (c === 0x1b) esc = true;
    if (c === 8) over = true;
    cur++;
  }
  longest = Math.max(longest, cur);
  const extra: string[] = [];
  if (longest > 300) extra.push(`with very long lines (${longest})`);
  const terms = [crlf ? 'CRLF' : '', cr ? 'CR' : '', lf ? 'LF' : ''].filter(Boolean);
  if (terms.length === 0) extra.push('with no line terminators');
  else if (!(terms.length === 1 && lf)) extra.push(`with ${terms.join(', ')} line terminators`);
  if (esc) extra.push('with escape sequences');
  if (over) extra.push('with overstriking');
  return { ...k, text: [k.text, ...extra].join(', ') };
}

function isJson(s: string): boolean {
  const t = s.trim();
  if (!/^[[{]/.test(t)) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}
