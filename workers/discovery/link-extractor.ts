/**
 * Links of an HTML page for discovery: `<a href>`, `<area href>` and
 * `<link rel=next|prev>`, resolved against `<base href>` (the first one, as
 * browsers do) or the page URL, with their anchor text for search relevance
 * and whether they are nofollow (by `rel`, or for every link by a robots meta
 * tag). Also the canonical URL, title and description, read in the same pass.
 *
 * Dropped: `javascript:`, `mailto:`, `tel:`, `data:` and every other non-http
 * scheme, links to a fragment of the same page, and unparsable URLs.
 * Fragments are removed from what is kept. Bounded: at most `maxLinks` links
 * are kept and anchor text is cut at `maxTextLength` characters. Uses
 * htmlparser2's tokenizer, with no DOM built.
 */
import { Parser } from 'htmlparser2';
import { RunSkippingTokenizer } from '../html/run-skipping-tokenizer.js';
import { linkBase, resolveFoundLink } from './link-resolution.js';

export type LinkSource = 'anchor' | 'area' | 'next' | 'prev';

export interface ExtractedLink {
  /** Absolute http(s) URL without its fragment. */
  url: string;
  /** Collapsed text of the link (an image's alt text when it has none); `alt` or `title` for `<area>`. */
  text: string;
  source: LinkSource;
  nofollow: boolean;
}

export interface ExtractedPage {
  links: ExtractedLink[];
  canonical: string | null;
  title: string | null;
  description: string | null;
  /** The `<meta name=robots>` directives that affect discovery. */
  robots: { noindex: boolean; nofollow: boolean };
  /** Links found beyond `maxLinks`, not returned. */
  droppedLinks: number;
}

export interface LinkExtractionOptions {
  maxLinks?: number;
  maxTextLength?: number;
}

export const LINK_EXTRACTION_LIMITS = Object.freeze({ maxLinks: 10_000, maxTextLength: 256 });

interface RawLink {
  href: string;
  text: string;
  source: LinkSource;
  rel: string;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function relTokens(rel: string | undefined): string[] {
  return (rel ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/**
 * The link reading as parser callbacks, so a pass that parses the page for
 * something else (the content pipeline's tape) reads its links too. It sees
 * every element, hidden ones included: a link a page hides is still a page
 * of the site.
 */
export interface LinkCollector {
  onopentag(name: string, attrs: Record<string, string>): void;
  ontext(text: string): void;
  onclosetag(name: string): void;
  /** The links read, resolved against `<base href>` or `pageUrl`; call once the parse has ended. */
  finish(pageUrl: string): ExtractedPage;
}

/**
 * Parser options the collector's callbacks expect: entities decoded, tag and attribute names in lower case;
 * with the tokenizer that moves over plain runs at once (its events are the stock tokenizer's).
 */
export const LINK_PARSER_OPTIONS = Object.freeze({ decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, Tokenizer: RunSkippingTokenizer });

export function createLinkCollector(options: LinkExtractionOptions = {}): LinkCollector {
  const maxLinks = options.maxLinks ?? LINK_EXTRACTION_LIMITS.maxLinks;
  const maxText = options.maxTextLength ?? LINK_EXTRACTION_LIMITS.maxTextLength;
  const raw: RawLink[] = [];
  let baseHref: string | null = null;
  let canonicalHref: string | null = null;
  let title: string | null = null;
  let description: string | null = null;
  const robots = { noindex: false, nofollow: false };
  let dropped = 0;

  let anchor: RawLink | null = null;
  let anchorImageAlt = '';
  let inTitle = false;
  let titleText = '';
  let svgDepth = 0;

  const push = (link: RawLink) => {
    if (raw.length < maxLinks) raw.push(link);
    else dropped++;
  };
  const closeAnchor = () => {
    if (!anchor) return;
    push({ ...anchor, text: collapse(anchor.text) || collapse(anchorImageAlt) });
    anchor = null;
  };

  return {
    onopentag(name, attrs) {
      switch (name) {
        case 'a':
          // Browsers end an open link when another starts.
          closeAnchor();
          if (attrs.href !== undefined) {
            anchor = { href: attrs.href, text: '', source: 'anchor', rel: attrs.rel ?? '' };
            anchorImageAlt = '';
          }
          break;
        case 'area':
          if (attrs.href !== undefined) push({ href: attrs.href, text: collapse(attrs.alt || attrs.title || ''), source: 'area', rel: attrs.rel ?? '' });
          break;
        case 'img':
          if (anchor && attrs.alt) anchorImageAlt += ` ${attrs.alt}`;
          break;
        case 'base':
          if (baseHref === null && attrs.href !== undefined) baseHref = attrs.href;
          break;
        case 'link': {
          if (attrs.href === undefined) break;
          const rel = relTokens(attrs.rel);
          if (rel.includes('canonical') && canonicalHref === null) canonicalHref = attrs.href;
          if (rel.includes('next')) push({ href: attrs.href, text: '', source: 'next', rel: attrs.rel ?? '' });
          if (rel.includes('prev') || rel.includes('previous')) push({ href: attrs.href, text: '', source: 'prev', rel: attrs.rel ?? '' });
          break;
        }
        case 'meta': {
          const metaName = (attrs.name ?? '').toLowerCase();
          if (metaName === 'description' && description === null) description = collapse(attrs.content ?? '') || null;
          if (metaName === 'robots') {
            const directives = (attrs.content ?? '').toLowerCase().split(/[\s,]+/);
            if (directives.includes('nofollow') || directives.includes('none')) robots.nofollow = true;
            if (directives.includes('noindex') || directives.includes('none')) robots.noindex = true;
          }
          break;
        }
        case 'title':
          // An SVG `<title>` is a tooltip, not the page title.
          if (title === null && svgDepth === 0) inTitle = true;
          break;
        case 'svg':
          svgDepth++;
          break;
      }
    },
    ontext(text) {
      if (anchor && anchor.text.length < maxText * 2) anchor.text += text;
      if (inTitle) titleText += text;
    },
    onclosetag(name) {
      if (name === 'a') {
        closeAnchor();
      } else if (name === 'title' && inTitle) {
        inTitle = false;
        title = collapse(titleText) || null;
      } else if (name === 'svg' && svgDepth > 0) {
        svgDepth--;
      }
    },
    finish(pageUrl) {
      closeAnchor();
      // An unusable <base href> is ignored, as browsers do.
      const parts = (baseHref !== null ? linkBase(baseHref, pageUrl) : null) ?? linkBase(pageUrl);
      const resolve = (href: string) => (parts === null ? null : resolveFoundLink(href, parts));
      const links: ExtractedLink[] = [];
      for (const link of raw) {
        const url = resolve(link.href);
        if (url === null) continue;
        links.push({
          url,
          text: link.text.slice(0, maxText),
          source: link.source,
          nofollow: robots.nofollow || (link.rel !== '' && relTokens(link.rel).includes('nofollow')),
        });
      }
      return {
        links,
        canonical: canonicalHref === null ? null : resolve(canonicalHref),
        title,
        description,
        robots,
        droppedLinks: dropped,
      };
    },
  };
}

export function extractLinks(html: string, pageUrl: string, options: LinkExtractionOptions = {}): ExtractedPage {
  const collector = createLinkCollector(options);
  new Parser(collector, LINK_PARSER_OPTIONS).end(html);
  return collector.finish(pageUrl);
}
