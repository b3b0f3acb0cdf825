/** Virtual POSIX paths: '/' is the zone root. Pure string functions, no I/O. */

export const MAX_PATH_BYTES = 4096;
export const MAX_NAME_BYTES = 255;

/** Split a virtual path into components, applying '.' and '..' lexically ('..' never rises above '/'). */
export function splitVirtual(path: string, cwd = '/'): string[] {
  const parts = path.startsWith('/') ? [] : splitVirtual(cwd, '/');
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts;
}

/** Absolute, normalised virtual path. */
export function normalizeVirtual(path: string, cwd = '/'): string {
  return '/' + splitVirtual(path, cwd).join('/');
}

export function joinVirtual(dir: string, name: string): string {
  if (name.startsWith('/')) return name;
  if (dir === '' ) return name;
  return dir.endsWith('/') ? dir + name : dir + '/' + name;
}

export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return path.startsWith('/') ? '/' : '';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

export function dirName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return path.startsWith('/') ? '/' : '.';
  const i = trimmed.lastIndexOf('/');
  if (i < 0) return '.';
  const d = trimmed.slice(0, i).replace(/\/+$/, '');
  return d === '' ? '/' : d;
}
