/**
 * File names in diagnostics, quoted as GNU coreutils does (quotearg's shell-escape style):
 * plain names stay bare, others are single-quoted, control characters become $'\n' pieces.
 */
const SAFE = /^[A-Za-z0-9_./%+,:@=^-]+$/;

export function quoteName(name: string): string {
  if (name !== '' && SAFE.test(name) && !name.startsWith('~')) return name;
  if (!/[\x00-\x1f\x7f]/.test(name)) {
    if (!name.includes("'")) return `'${name}'`;
    if (!/["$`\\!]/.test(name)) return `"${name}"`;
    return `'${name.replace(/'/g, "'\\''")}'`;
  }
  let out = '';
  let inQuote = false;
  for (const ch of name) {
    const code = ch.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) {
      if (inQuote) out += "'";
      inQuote = false;
      out += `$'${controlEscape(code)}'`;
    } else {
      if (!inQuote) out += "'";
      inQuote = true;
      out += ch === "'" ? "'\\''" : ch;
    }
  }
  if (inQuote) out += "'";
  return out;
}

function controlEscape(code: number): string {
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };
  return named[code] ?? '\\' + code.toString(8).padStart(3, '0');
}
