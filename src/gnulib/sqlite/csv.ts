/** RFC 4180 CSV (quoted fields with embedded delimiters, quotes and newlines; CRLF or LF; a UTF-8 BOM dropped). */
export function parseCsv(text: string, delimiter = ','): string[][] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  let any = false;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') { quoted = true; any = true; i++; continue; }
    if (c === delimiter) { row.push(field); field = ''; any = true; i++; continue; }
    if (c === '\n' || c === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      any = false;
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    field += c;
    any = true;
    i++;
  }
  if (any || field !== '' || row.length > 0) { row.push(field); rows.push(row); }
  return rows;
}
