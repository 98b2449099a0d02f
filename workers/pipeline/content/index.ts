import { recordPage } from './html-tape.js';
import { selectFullPage, selectMainContent } from './main-content.js';
import { renderMarkdown, renderText } from './markdown-emitter.js';
import { renderHtml } from './html-emitter.js';
import { pageMetadata } from './page-metadata.js';
import { createUrlResolver } from './url-resolver.js';
import { markdownDocument, textDocument } from './plain-input.js';
import type { ExtractedPage } from '../../discovery/link-extractor.js';
import type { DocumentText } from '../../html/document-text.js';

export interface ContentOptions {
  url: string;
  /** Keep only the main content (the default), or convert the whole page. */
  onlyMainContent?: boolean;
  /** Also read the page's links for discovery, in the same parse. */
  links?: boolean;
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

/** convertHtml, and the page the outputs were read from (the page itself, unless it nested past the limit). */
export function convertPage(html: DocumentText, options: ContentOptions): { result: ContentResult; source: DocumentText } {
  const { tape, collector, source } = recordPage(html, options.onlyMainContent !== false, options.links === true);
  const urls = createUrlResolver(options.url, tape.head.baseHref);
  const selection = options.onlyMainContent === false ? selectFullPage(tape) : selectMainContent(tape);
  const { title, metadata } = pageMetadata(tape.head, urls);
  // Each output is rendered on first read, so a request for one format replays the tape once.
  let markdown: string | undefined;
  let text: string | undefined;
  let cleaned: string | undefined;
  const result: ContentResult = {
    get markdown() {
      return (markdown ??= renderMarkdown(tape, selection, urls));
    },
    get text() {
      return (text ??= renderText(tape, selection, urls));
    },
    get html() {
      return (cleaned ??= renderHtml(tape, selection, urls));
    },
    title,
    metadata,
    ...(collector ? { links: collector.finish(options.url) } : {}),
  };
  return { result, source };
}

export function htmlToMarkdown(html: string, options: ContentOptions): string {
  const { tape } = recordPage(html, options.onlyMainContent !== false);
  const urls = createUrlResolver(options.url, tape.head.baseHref);
  const selection = options.onlyMainContent === false ? selectFullPage(tape) : selectMainContent(tape);
  return renderMarkdown(tape, selection, urls);
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
