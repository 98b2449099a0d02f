import { recordPage, type Tape } from './html-tape.js';
import { selectFullPage, selectMainContent } from './main-content.js';
import { renderMarkdown, renderText } from './markdown-emitter.js';
import { renderHtml } from './html-emitter.js';
import { pageMetadata } from './page-metadata.js';
import { createUrlResolver, type UrlResolver } from './url-resolver.js';
import type { Selection } from './tape-walk.js';
import { markdownDocument, textDocument } from './plain-input.js';
import { structuredBodyInstead } from './structured-body.js';
import type { ExtractedPage } from '../../discovery/link-extractor.js';
import type { DocumentText } from '../../html/document-text.js';

export interface ContentOptions {
  url: string;
  /** Keep only the main content (the default), or convert the whole page. */
  onlyMainContent?: boolean;
  /** Also read the page's links for discovery, in the same parse. */
  links?: boolean;
  /** Leave out the consent banners a whole page names as such (with onlyMainContent false; the main content never has them). */
  removeCookieBanners?: boolean;
}

export interface ContentResult {
  markdown: string;
  text: string;
  html: string;
  title: string;
  metadata: Record<string, string>;
  /** The page's links, resolved against the page URL, when asked for. */
  links?: ExtractedPage;
}

/** Markdown, text and cleaned HTML of a page (and its links, when asked for) from one parse. */
export function convertHtml(html: string, options: ContentOptions): ContentResult {
  return convertPage(html, options).result;
}

/**
 * The outputs of one recorded page, each rendered on first read, so a request
 * for one format replays the tape once. A class rather than an object literal
 * with getters: made once per page, such a literal kept everything its getters
 * reach (the tape and the page) alive through young-generation collections,
 * and half of each collection survived (docs/decisions/0025-parsing-cost.md).
 */
class RenderedPage implements ContentResult {
  #markdown: string | undefined;
  #text: string | undefined;
  #html: string | undefined;
  links?: ExtractedPage;

  constructor(
    private readonly tape: Tape,
    private readonly selection: Selection,
    private readonly urls: UrlResolver,
    readonly title: string,
    readonly metadata: Record<string, string>,
  ) {}

  get markdown(): string {
    return (this.#markdown ??= renderMarkdown(this.tape, this.selection, this.urls));
  }

  get text(): string {
    return (this.#text ??= renderText(this.tape, this.selection, this.urls));
  }

  get html(): string {
    return (this.#html ??= renderHtml(this.tape, this.selection, this.urls));
  }
}

/** convertHtml, and the page the outputs were read from (the page itself, unless it nested past the limit). */
export function convertPage(html: DocumentText, options: ContentOptions): { result: ContentResult; source: DocumentText } {
  const { tape: page, collector, source } = recordPage(html, options.onlyMainContent !== false, options.links === true);
  const urls = createUrlResolver(options.url, page.head.baseHref);
  const { tape, selection } = selectContent(page, options);
  const { title, metadata } = pageMetadata(page.head, urls);
  const result = new RenderedPage(tape, selection, urls, title, metadata);
  if (collector) result.links = collector.finish(options.url);
  return { result, source };
}

export function htmlToMarkdown(html: string, options: ContentOptions): string {
  const { tape: page } = recordPage(html, options.onlyMainContent !== false);
  const urls = createUrlResolver(options.url, page.head.baseHref);
  const { tape, selection } = selectContent(page, options);
  return renderMarkdown(tape, selection, urls);
}

/**
 * What the outputs are rendered from: the whole page, or its main content;
 * or, when the page's visible text is next to nothing beside the article body
 * its JSON-LD states, that body, recorded as a document of its own.
 */
function selectContent(page: Tape, options: ContentOptions): { tape: Tape; selection: Selection } {
  if (options.onlyMainContent === false) return { tape: page, selection: selectFullPage(page, options.removeCookieBanners === true) };
  const selection = selectMainContent(page);
  const body = structuredBodyInstead(page, selection);
  if (body === undefined) return { tape: page, selection };
  const { tape } = recordPage(body, false);
  return { tape, selection: selectFullPage(tape) };
}

export function extractPageMetadata(html: string, url: string): { title: string; metadata: Record<string, string> } {
  const { tape } = recordPage(html, false);
  return pageMetadata(tape.head, createUrlResolver(url, tape.head.baseHref));
}

/** Plain text given as the document (the extract endpoint's `content_type: text`). */
export function convertText(text: string): ContentResult {
  return textDocument(text);
}

/** Markdown given as the document: kept as it is, rendered to HTML, and read back as text. */
export function convertMarkdown(md: string, url: string): ContentResult {
  return markdownDocument(md, url);
}
