import { Readable } from 'node:stream';
import type { MappedUrl } from '../../../proto/gen/trawl/v1/map_pb.js';

export const EXPORT_FORMATS = ['json', 'csv', 'xml'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_MEDIA_TYPES: Readonly<Record<ExportFormat, string>> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

/** URLs written per chunk of the download. */
const CHUNK_URLS = 500;

/** A CSV field (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled; a leading formula character is neutralised. */
function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  // Spreadsheets run a cell starting with = + - @ as a formula.
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const xmlText = (text: string) => text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);

function* csvLines(urls: readonly MappedUrl[]): Generator<string> {
  yield 'url,depth,source,relevance_score,title,description,last_modified\r\n';
  for (let i = 0; i < urls.length; i += CHUNK_URLS) {
    let chunk = '';
    for (const u of urls.slice(i, i + CHUNK_URLS)) {
      chunk += `${[u.url, u.depth, u.source, u.relevanceScore ?? null, u.metadata?.title, u.metadata?.description, u.metadata?.lastModified].map(csvField).join(',')}\r\n`;
    }
    yield chunk;
  }
}

/** A sitemap (sitemaps.org urlset): one <url> per URL, with <lastmod> when the map knows it. */
function* sitemapLines(urls: readonly MappedUrl[]): Generator<string> {
  yield '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n';
  for (let i = 0; i < urls.length; i += CHUNK_URLS) {
    let chunk = '';
    for (const u of urls.slice(i, i + CHUNK_URLS)) {
      const lastmod = u.metadata?.lastModified;
      chunk += `  <url><loc>${xmlText(u.url)}</loc>${lastmod ? `<lastmod>${xmlText(lastmod)}</lastmod>` : ''}</url>\n`;
    }
    yield chunk;
  }
  yield '</urlset>\n';
}

/** The map as a download, written a chunk at a time. */
export function exportStream(format: Exclude<ExportFormat, 'json'>, urls: readonly MappedUrl[]): Readable {
  return Readable.from(format === 'csv' ? csvLines(urls) : sitemapLines(urls), { objectMode: false });
}
