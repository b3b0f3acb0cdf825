/** A small MIME guess: magic bytes first, then the extension. */
const BY_EXT: Record<string, string> = {
  '.txt': 'text/plain', '.md': 'text/markdown', '.csv': 'text/csv', '.tsv': 'text/tab-separated-values',
  '.html': 'text/html', '.htm': 'text/html', '.css': 'text/css', '.xml': 'application/xml', '.svg': 'image/svg+xml',
  '.js': 'text/javascript', '.mjs': 'text/javascript', '.cjs': 'text/javascript', '.ts': 'text/x-typescript', '.tsx': 'text/x-typescript',
  '.jsx': 'text/javascript', '.json': 'application/json', '.jsonl': 'application/x-ndjson', '.yaml': 'application/yaml', '.yml': 'application/yaml',
  '.toml': 'application/toml', '.ini': 'text/plain', '.py': 'text/x-python', '.rb': 'text/x-ruby', '.go': 'text/x-go', '.rs': 'text/x-rust',
  '.java': 'text/x-java', '.c': 'text/x-c', '.h': 'text/x-c', '.cpp': 'text/x-c++', '.hpp': 'text/x-c++', '.sh': 'text/x-shellscript',
  '.sql': 'application/sql', '.log': 'text/plain',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.bmp': 'image/bmp',
  '.ico': 'image/vnd.microsoft.icon', '.pdf': 'application/pdf', '.zip': 'application/zip', '.gz': 'application/gzip',
  '.tgz': 'application/gzip', '.tar': 'application/x-tar', '.bz2': 'application/x-bzip2', '.xz': 'application/x-xz', '.7z': 'application/x-7z-compressed',
  '.db': 'application/vnd.sqlite3', '.sqlite': 'application/vnd.sqlite3', '.sqlite3': 'application/vnd.sqlite3',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.mp4': 'video/mp4', '.wasm': 'application/wasm',
};

const MAGIC: [number[] | string, string][] = [
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
  [[0xff, 0xd8, 0xff], 'image/jpeg'],
  ['GIF87a', 'image/gif'], ['GIF89a', 'image/gif'],
  ['%PDF-', 'application/pdf'],
  [[0x50, 0x4b, 0x03, 0x04], 'application/zip'], [[0x50, 0x4b, 0x05, 0x06], 'application/zip'],
  [[0x1f, 0x8b], 'application/gzip'],
  ['BZh', 'application/x-bzip2'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 'application/x-xz'],
  ['SQLite format 3\0', 'application/vnd.sqlite3'],
  [[0x7f, 0x45, 0x4c, 0x46], 'application/x-elf'],
  [[0x00, 0x61, 0x73, 0x6d], 'application/wasm'],
  ['BM', 'image/bmp'],
];

function startsWith(head: Uint8Array, sig: number[] | string): boolean {
  const bytes = typeof sig === 'string' ? [...sig].map((c) => c.charCodeAt(0)) : sig;
  if (head.length < bytes.length) return false;
  return bytes.every((b, i) => head[i] === b);
}

/** Does this prefix look like text (no NUL, mostly printable, valid UTF-8 apart from a cut last char)? */
export function looksText(head: Uint8Array): boolean {
  if (head.length === 0) return true;
  let odd = 0;
  for (const b of head) {
    if (b === 0) return false;
    if (b < 9 || (b > 13 && b < 32 && b !== 27)) odd++;
  }
  if (odd > head.length / 100 + 1) return false;
  const s = Buffer.from(head).toString('utf8');
  const bad = (s.match(/\uFFFD/g) ?? []).length;
  return bad <= 1; // one may come from a character cut at the end of the prefix
}

/** MIME type from the first bytes and the name. */
export function guessMime(name: string, head: Uint8Array): { mime: string; source: 'magic' | 'extension' | 'content' } {
  for (const [sig, mime] of MAGIC) {
    if (!startsWith(head, sig)) continue;
    if (mime === 'image/bmp' && head.length < 14) continue;
    if (mime === 'application/zip') {
      const byExt = BY_EXT[ext(name)];
      if (byExt?.startsWith('application/vnd.openxmlformats')) return { mime: byExt, source: 'magic' };
    }
    return { mime, source: 'magic' };
  }
  if (head.length >= 12 && startsWith(head, 'RIFF') && Buffer.from(head.subarray(8, 12)).toString('latin1') === 'WEBP') return { mime: 'image/webp', source: 'magic' };
  const byExt = BY_EXT[ext(name)];
  if (byExt) return { mime: byExt, source: 'extension' };
  return { mime: looksText(head) ? 'text/plain' : 'application/octet-stream', source: 'content' };
}

function ext(name: string): string {
  const i = name.lastIndexOf('.');
  return i > 0 ? name.slice(i).toLowerCase() : '';
}
