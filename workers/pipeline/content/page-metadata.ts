import type { HeadInfo } from './html-tape.js';
import type { UrlResolver } from './url-resolver.js';

/**
 * The page title and a small flat metadata map, from what the tape recorded
 * in the head (and `<time>` elements marked as the publication date). The
 * first of several sources that has a value wins.
 */
const SOURCES: readonly [string, readonly string[]][] = [
  ['description', ['description', 'og:description', 'twitter:description', 'dc.description']],
  ['keywords', ['keywords', 'news_keywords']],
  ['author', ['author', 'article:author', 'dc.creator', 'sailthru.author', 'parsely-author', 'byl']],
  ['publishedTime', ['article:published_time', 'datepublished', 'date', 'pubdate', 'publishdate', 'dc.date', 'dc.date.issued', 'sailthru.date', 'parsely-pub-date', 'og:published_time']],
  ['modifiedTime', ['article:modified_time', 'datemodified', 'og:updated_time', 'last-modified']],
  ['ogTitle', ['og:title']],
  ['ogDescription', ['og:description']],
  ['ogImage', ['og:image', 'og:image:url', 'og:image:secure_url']],
  ['ogUrl', ['og:url']],
  ['ogSiteName', ['og:site_name']],
  ['ogType', ['og:type']],
  ['ogLocale', ['og:locale']],
  ['twitterCard', ['twitter:card']],
];
const URL_KEYS = new Set(['ogImage', 'ogUrl']);

export function pageMetadata(head: HeadInfo, urls: UrlResolver): { title: string; metadata: Record<string, string> } {
  const byKey = new Map<string, string>();
  for (const { key, value } of head.meta) if (!byKey.has(key)) byKey.set(key, value);
  const metadata: Record<string, string> = {};
  const title = head.title || byKey.get('og:title') || byKey.get('twitter:title') || '';
  if (title) metadata.title = title;
  for (const [name, keys] of SOURCES) {
    for (const key of keys) {
      const value = byKey.get(key);
      if (value === undefined) continue;
      metadata[name] = URL_KEYS.has(name) ? urls.resolve(value) || value : value;
      break;
    }
  }
  if (!metadata.publishedTime && head.publishedTime) metadata.publishedTime = head.publishedTime;
  const language = head.lang || byKey.get('content-language') || byKey.get('language') || '';
  if (language) metadata.language = language;
  if (head.canonical) metadata.canonicalUrl = urls.resolve(head.canonical) || head.canonical;
  return { title, metadata };
}
