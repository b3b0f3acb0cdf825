/**
 * The HTML the link server writes itself: folder listings, rendered Markdown, error pages. Every
 * name and text is escaped; Markdown goes through `marked` and then `sanitize-html` (a kept
 * sanitiser, no regexes of ours), and the pages are served with a CSP that allows no script.
 */
import { marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = 'body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem;color:#222}' +
  'a{color:#0645ad;text-decoration:none}a:hover{text-decoration:underline}nav{margin-bottom:1rem;color:#555}' +
  'table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25rem .6rem;border-bottom:1px solid #e4e4e4}' +
  'td.n{text-align:right;font-variant-numeric:tabular-nums}pre{background:#f4f4f4;padding:.8rem;overflow:auto}' +
  'code{font-family:ui-monospace,monospace}.md table{width:auto}.md td,.md th{border:1px solid #ccc}footer{margin-top:2rem;color:#777;font-size:.85em}';

export function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${esc(title)}</title><style>${STYLE}</style></head>\n<body>\n${body}\n</body></html>\n`;
}

export interface ListedEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
  mtime: Date;
  /** Where the entry opens (absent: not served, e.g. a symlink). */
  href?: string;
}

export function humanSize(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = -1;
  do { v /= 1024; i++; } while (v >= 1024 && i < units.length - 1);
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

function when(d: Date): string {
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

/** Folders first, then files, each by name (code unit order, as ls under LC_ALL=C). */
export function sortEntries(entries: ListedEntry[]): ListedEntry[] {
  const rank = (e: ListedEntry) => (e.type === 'dir' ? 0 : 1);
  return entries.sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The breadcrumb: each step from the link's folder down to the one shown. */
export function breadcrumb(steps: { name: string; href: string }[]): string {
  return `<nav>${steps.map((s, i) => (i === steps.length - 1 ? `<strong>${esc(s.name)}</strong>` : `<a href="${esc(s.href)}">${esc(s.name)}</a>`)).join(' / ')}</nav>`;
}

export function listingPage(title: string, crumbs: { name: string; href: string }[], parent: string | undefined, entries: ListedEntry[], cut: number): string {
  const rows = sortEntries(entries).map((e) => {
    const label = esc(e.name) + (e.type === 'dir' ? '/' : e.type === 'symlink' ? ' (link, not followed)' : '');
    const name = e.href ? `<a href="${esc(e.href)}">${label}</a>` : label;
    return `<tr><td>${name}</td><td class="n">${e.type === 'dir' ? '-' : esc(humanSize(e.size))}</td><td>${esc(when(e.mtime))}</td></tr>`;
  });
  if (parent !== undefined) rows.unshift(`<tr><td><a href="${esc(parent)}">../</a></td><td class="n"></td><td></td></tr>`);
  const more = cut > 0 ? `<p>${cut} more entries not shown.</p>` : '';
  return page(title, `${breadcrumb(crumbs)}\n<table><thead><tr><th>Name</th><th class="n">Size</th><th>Modified (UTC)</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody></table>${more}\n<footer>${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}</footer>`);
}

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'input'],
  allowedAttributes: {
    a: ['href', 'title'], img: ['src', 'alt', 'title', 'width', 'height'], code: ['class'], th: ['align'], td: ['align'],
    input: [{ name: 'type', values: ['checkbox'] }, 'checked', 'disabled'], ol: ['start'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer' }) },
};

/**
 * Where a relative reference of the page points (a link's href, an image's src): the URL to
 * write instead, or undefined to leave the element inert (the attribute removed).
 */
export type RelativeRef = (ref: string) => string | undefined;

/** A reference the page's own resolver decides: not a scheme, not `//host`, not a bare `#fragment`. */
function isRelative(ref: string): boolean {
  return ref !== '' && !ref.startsWith('#') && !ref.startsWith('//') && !/^[a-z][a-z0-9+.-]*:/i.test(ref.trimStart());
}

function withRefs(relative: RelativeRef | undefined): sanitizeHtml.IOptions {
  if (!relative) return SANITIZE;
  const rewrite = (name: 'href' | 'src', extra: Record<string, string>): sanitizeHtml.Transformer => (tagName, attribs) => {
    const out: Record<string, string> = { ...attribs, ...extra };
    const ref = attribs[name];
    if (ref !== undefined && isRelative(ref)) {
      const to = relative(ref);
      if (to === undefined) delete out[name];
      else out[name] = to;
    }
    return { tagName, attribs: out };
  };
  return { ...SANITIZE, transformTags: { a: rewrite('href', { rel: 'noopener noreferrer' }), img: rewrite('src', {}) } };
}

/**
 * Markdown to sanitised HTML (GitHub flavour: tables, fenced code, task lists). `relative`
 * rewrites the relative links and images (the link server: tokenised URLs, or inert).
 */
export function renderMarkdown(text: string, relative?: RelativeRef): string {
  const html = marked.parse(text, { async: false, gfm: true }) as string;
  return sanitizeHtml(html, withRefs(relative));
}

export function markdownPage(title: string, crumbs: { name: string; href: string }[], text: string, rawHref: string, relative?: RelativeRef): string {
  return page(title, `${breadcrumb(crumbs)}\n<article class="md">\n${renderMarkdown(text, relative)}\n</article>\n<footer><a href="${esc(rawHref)}">source</a></footer>`);
}

export function errorPage(status: number, message: string): string {
  return page(`${status}`, `<h1>${status}</h1>\n<p>${esc(message)}</p>`);
}
