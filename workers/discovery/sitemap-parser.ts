/**
 * Sitemap parsing: XML urlsets and sitemap indexes (with hreflang alternates,
 * lastmod, changefreq and priority), plain-text sitemaps, and RSS, Atom and
 * JSON Feed documents read as lists of URLs. Input is bytes, whole or as a
 * stream of chunks; gzip is recognised by its magic bytes, whatever the name
 * says, because HTTP clients often decode a `.xml.gz` sent with
 * `Content-Encoding: gzip` already.
 *
 * Bounded: decompression and parsing stop at {@link SITEMAP_LIMITS} (the
 * sitemap protocol's 50,000 URLs and 50 MB uncompressed), so a gzip bomb costs
 * at most `maxBytes` of output; what was read until then is kept and the
 * result says it was truncated. XML is parsed by htmlparser2's streaming
 * tokenizer in XML mode, one chunk at a time.
 */
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Parser } from 'htmlparser2';

export interface SitemapLimits {
  /** Entries (URLs plus child sitemaps) read from one file. */
  maxUrls: number;
  /** Uncompressed bytes read from one file. */
  maxBytes: number;
  /** Longest URL kept, in characters. */
  maxUrlLength: number;
}

export const SITEMAP_LIMITS: Readonly<SitemapLimits> = Object.freeze({
  maxUrls: 50_000,
  maxBytes: 50 * 1024 * 1024,
  maxUrlLength: 8_192,
});

export type SitemapKind = 'urlset' | 'sitemapindex' | 'rss' | 'atom' | 'json-feed' | 'text' | 'unknown';

export const CHANGE_FREQUENCIES = ['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never'] as const;
export type ChangeFrequency = (typeof CHANGE_FREQUENCIES)[number];

export interface HreflangAlternate {
  hreflang: string;
  url: string;
}

export interface SitemapEntry {
  url: string;
  /** As written (W3C datetime in sitemaps, RFC 822 in RSS); null when absent. */
  lastmod: string | null;
  changefreq: ChangeFrequency | null;
  /** 0.0 to 1.0; null when absent or out of range. */
  priority: number | null;
  /** `xhtml:link rel="alternate" hreflang` versions of the page. */
  alternates: HreflangAlternate[];
  /** The item title of a feed; null for sitemaps. */
  title: string | null;
}

export interface SitemapReference {
  url: string;
  lastmod: string | null;
}

export interface ParsedSitemap {
  kind: SitemapKind;
  /** Page URLs (urlset, text and feeds). */
  urls: SitemapEntry[];
  /** Child sitemaps (sitemap index). */
  sitemaps: SitemapReference[];
  /** Entries whose location was not an absolute http(s) URL within the length limit. */
  invalidUrls: number;
  /** Why reading stopped early, or null when the whole file was read. */
  truncated: 'max-urls' | 'max-bytes' | null;
  /** A decompression or JSON syntax error that ended reading; what came before it is kept. */
  error: string | null;
  /** Uncompressed bytes read. */
  bytes: number;
}

export interface SitemapParseOptions {
  /** The file's own URL: relative locations are resolved against it. */
  url?: string;
  limits?: Partial<SitemapLimits>;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** Collects entries and enforces the URL limit, for every format. */
class EntryCollector {
  readonly result: ParsedSitemap = {
    kind: 'unknown',
    urls: [],
    sitemaps: [],
    invalidUrls: 0,
    truncated: null,
    error: null,
    bytes: 0,
  };

  constructor(
    private readonly limits: SitemapLimits,
    private readonly baseUrl: string | undefined,
  ) {}

  /** Whether the URL limit is reached (the byte limit ends the input instead). */
  get full(): boolean {
    return this.result.truncated === 'max-urls';
  }

  resolve(location: string): string | null {
    const trimmed = location.trim();
    if (!trimmed || trimmed.length > this.limits.maxUrlLength) return null;
    try {
      const url = new URL(trimmed, this.baseUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
      return url.href.length > this.limits.maxUrlLength ? null : url.href;
    } catch {
      return null;
    }
  }

  private reserve(): boolean {
    if (this.full) return false;
    if (this.result.urls.length + this.result.sitemaps.length >= this.limits.maxUrls) {
      this.result.truncated = 'max-urls';
      return false;
    }
    return true;
  }

  addUrl(entry: Omit<SitemapEntry, 'url'> & { url: string }): void {
    const url = this.resolve(entry.url);
    if (!url) {
      this.result.invalidUrls++;
      return;
    }
    if (!this.reserve()) return;
    const alternates = entry.alternates.flatMap((a) => {
      const href = this.resolve(a.url);
      return href ? [{ hreflang: a.hreflang, url: href }] : [];
    });
    this.result.urls.push({ ...entry, url, alternates });
  }

  addSitemap(location: string, lastmod: string | null): void {
    const url = this.resolve(location);
    if (!url) {
      this.result.invalidUrls++;
      return;
    }
    if (this.reserve()) this.result.sitemaps.push({ url, lastmod });
  }
}

interface OpenEntry {
  loc: string | null;
  lastmod: string | null;
  changefreq: string | null;
  priority: string | null;
  title: string | null;
  alternates: HreflangAlternate[];
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1).toLowerCase();
}

function emptyText(text: string | null): string | null {
  const trimmed = text?.trim();
  return trimmed ? trimmed : null;
}

function parsePriority(text: string | null): number | null {
  if (text === null || !/^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(text)) return null;
  const value = Number(text);
  return value >= 0 && value <= 1 ? value : null;
}

function parseChangeFrequency(text: string | null): ChangeFrequency | null {
  const value = text?.trim().toLowerCase();
  return (CHANGE_FREQUENCIES as readonly string[]).includes(value ?? '') ? (value as ChangeFrequency) : null;
}

/**
 * Entry elements by document kind. Sitemap files mixing `url` and `sitemap`
 * entries exist, so both are read in either kind.
 */
const ENTRY_ELEMENTS: Partial<Record<SitemapKind, Record<string, 'page' | 'sitemap'>>> = {
  urlset: { url: 'page', sitemap: 'sitemap' },
  sitemapindex: { url: 'page', sitemap: 'sitemap' },
  rss: { item: 'page' },
  atom: { entry: 'page' },
};
const ROOT_KINDS: Record<string, SitemapKind> = { urlset: 'urlset', sitemapindex: 'sitemapindex', rss: 'rss', rdf: 'rss', feed: 'atom' };
/** Child elements whose text is kept, by the field they fill. */
const TEXT_FIELDS: Record<string, keyof OpenEntry> = {
  loc: 'loc',
  lastmod: 'lastmod',
  changefreq: 'changefreq',
  priority: 'priority',
  title: 'title',
  link: 'loc',
  pubdate: 'lastmod',
  updated: 'lastmod',
  'dc:date': 'lastmod',
};

/**
 * A streaming handler for the XML forms: it watches the direct children of
 * each entry element (`url`, `sitemap`, `item`, `entry`), so locations nested
 * deeper, such as `image:loc`, never replace the page's own.
 */
function createXmlSink(collector: EntryCollector): { write(text: string): void; end(): void } {
  const stack: string[] = [];
  let entry: OpenEntry | null = null;
  let entryType: 'page' | 'sitemap' = 'page';
  let entryDepth = -1;
  let field: keyof OpenEntry | null = null;
  let text = '';

  const closeEntry = (kind: SitemapKind) => {
    const e = entry!;
    entry = null;
    if (entryType === 'sitemap') {
      if (e.loc !== null) collector.addSitemap(e.loc, emptyText(e.lastmod));
      return;
    }
    if (e.loc === null) return;
    collector.addUrl({
      url: e.loc,
      lastmod: emptyText(e.lastmod),
      changefreq: parseChangeFrequency(e.changefreq),
      priority: parsePriority(e.priority),
      alternates: e.alternates,
      title: kind === 'rss' || kind === 'atom' ? emptyText(e.title) : null,
    });
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const local = localName(name);
        stack.push(local);
        if (stack.length === 1) {
          collector.result.kind = ROOT_KINDS[local] ?? 'unknown';
          return;
        }
        if (entry === null) {
          const type = ENTRY_ELEMENTS[collector.result.kind]?.[local];
          if (type) {
            entryType = type;
            entry = { loc: null, lastmod: null, changefreq: null, priority: null, title: null, alternates: [] };
            entryDepth = stack.length;
            // RSS 1.0 names the item by its rdf:about attribute.
            if (attributes['rdf:about']) entry.loc = attributes['rdf:about'];
          }
          return;
        }
        if (stack.length !== entryDepth + 1) return;
        if (local === 'link' && attributes.href !== undefined) {
          const rel = (attributes.rel ?? 'alternate').toLowerCase();
          if (attributes.hreflang && rel === 'alternate' && collector.result.kind === 'urlset') {
            entry.alternates.push({ hreflang: attributes.hreflang, url: attributes.href });
          } else if (collector.result.kind === 'atom' && rel === 'alternate' && entry.loc === null) {
            entry.loc = attributes.href;
          }
          return;
        }
        const target = TEXT_FIELDS[name.toLowerCase()] ?? TEXT_FIELDS[local];
        if (target && entry[target] === null) {
          field = target;
          text = '';
        }
      },
      ontext(data) {
        if (field !== null) text += data;
      },
      onclosetag() {
        const depth = stack.length;
        stack.pop();
        if (entry === null) return;
        if (field !== null && depth === entryDepth + 1) {
          (entry[field] as string | null) = text;
          field = null;
        } else if (depth === entryDepth) {
          closeEntry(collector.result.kind);
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  return { write: (chunk) => parser.write(chunk), end: () => parser.end() };
}

interface JsonFeedItem {
  url?: unknown;
  external_url?: unknown;
  title?: unknown;
  date_modified?: unknown;
  date_published?: unknown;
}

function readJsonFeed(text: string, collector: EntryCollector): void {
  let feed: { version?: unknown; items?: unknown };
  try {
    feed = JSON.parse(text) as typeof feed;
  } catch (error) {
    collector.result.error = `invalid JSON: ${(error as Error).message}`;
    return;
  }
  if (typeof feed?.version !== 'string' || !feed.version.includes('jsonfeed.org') || !Array.isArray(feed.items)) return;
  collector.result.kind = 'json-feed';
  const asText = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);
  for (const item of feed.items as JsonFeedItem[]) {
    if (collector.full) break;
    const url = asText(item?.url) ?? asText(item?.external_url);
    if (url === null) continue;
    collector.addUrl({
      url,
      lastmod: asText(item.date_modified) ?? asText(item.date_published),
      changefreq: null,
      priority: null,
      alternates: [],
      title: asText(item.title),
    });
  }
}

/** The text without its last line (kept up to its last line break): a sitemap cut off mid-way ends in part of a URL. */
function withoutLastLine(text: string): string {
  return text.slice(0, Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r')) + 1);
}

function readTextSitemap(text: string, collector: EntryCollector): void {
  collector.result.kind = 'text';
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (collector.full) break;
    const location = line.trim();
    if (!location) continue;
    collector.addUrl({ url: location, lastmod: null, changefreq: null, priority: null, alternates: [], title: null });
  }
}

async function* chunksOf(input: Uint8Array | AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  if (input instanceof Uint8Array) yield input;
  else yield* input;
}

/**
 * The uncompressed bytes of the input: gunzipped when it starts with the gzip
 * magic bytes, passed through otherwise, and cut at `maxBytes`.
 */
async function* uncompressed(
  input: Uint8Array | AsyncIterable<Uint8Array>,
  maxBytes: number,
  result: ParsedSitemap,
): AsyncIterable<Uint8Array> {
  const source = chunksOf(input)[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let headLength = 0;
  while (headLength < GZIP_MAGIC.length) {
    const next = await source.next();
    if (next.done) break;
    head.push(next.value);
    headLength += next.value.length;
  }
  const first = Buffer.concat(head);
  const rest: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => source,
  };
  async function* joined(): AsyncIterable<Uint8Array> {
    try {
      if (first.length) yield first;
      yield* rest;
    } finally {
      // Stopping while the head is still being handed on would otherwise leave the source open.
      await source.return?.();
    }
  }
  const gzipped = first.length >= 2 && first[0] === GZIP_MAGIC[0] && first[1] === GZIP_MAGIC[1];
  let stream: AsyncIterable<Uint8Array> = joined();
  if (gzipped) {
    const gunzip = createGunzip();
    // pipeline passes a failing source's error on to the gunzip stream and, when reading stops early, releases the source.
    pipeline(Readable.from(stream), gunzip, () => {});
    stream = gunzip;
  }
  try {
    for await (const chunk of stream) {
      const room = maxBytes - result.bytes;
      if (chunk.length > room) {
        if (room > 0) yield chunk.subarray(0, room);
        result.bytes = maxBytes;
        result.truncated = 'max-bytes';
        return;
      }
      result.bytes += chunk.length;
      yield chunk;
    }
  } catch (error) {
    result.error = `${gzipped ? 'gzip' : 'read'} error: ${(error as Error).message}`;
  } finally {
    if (stream instanceof Readable) stream.destroy();
  }
}

/** Picks the format from the first characters, then streams XML or buffers the rest. */
class FormatRouter {
  private xml: { write(text: string): void; end(): void } | null = null;
  private whole: string | null = null;

  constructor(private readonly collector: EntryCollector) {}

  write(text: string): void {
    if (this.xml) this.xml.write(text);
    else if (this.whole !== null) this.whole += text;
    else {
      const start = text.replace(/^[\s\ufeff]+/, '');
      if (!start) return;
      if (start.startsWith('<')) this.xml = createXmlSink(this.collector);
      else this.whole = '';
      this.write(start);
    }
  }

  finish(): void {
    const { result } = this.collector;
    if (this.xml) {
      // Ending the parser closes open elements, which would emit a location cut off mid-way.
      if (result.truncated === null) this.xml.end();
    } else if (this.whole !== null) {
      if (/^[{[]/.test(this.whole)) readJsonFeed(this.whole, this.collector);
      else readTextSitemap(result.truncated === 'max-bytes' ? withoutLastLine(this.whole) : this.whole, this.collector);
    }
  }
}

/**
 * Parses one sitemap file (or feed). Never throws for bad content: invalid
 * entries are counted, and a broken stream ends reading with `error` set.
 */
export async function parseSitemap(
  input: Uint8Array | AsyncIterable<Uint8Array>,
  options: SitemapParseOptions = {},
): Promise<ParsedSitemap> {
  const limits: SitemapLimits = { ...SITEMAP_LIMITS, ...options.limits };
  const collector = new EntryCollector(limits, options.url);
  const router = new FormatRouter(collector);
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of uncompressed(input, limits.maxBytes, collector.result)) {
    router.write(decoder.decode(chunk, { stream: true }));
    if (collector.full) break;
  }
  router.write(decoder.decode());
  router.finish();
  return collector.result;
}
