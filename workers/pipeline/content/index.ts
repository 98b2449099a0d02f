import { recordTape } from './html-tape.js';
import { selectFullPage, selectMainContent } from './main-content.js';
import { renderMarkdown, renderText } from './markdown-emitter.js';
import { renderHtml } from './html-emitter.js';
import { pageMetadata } from './page-metadata.js';
import { createUrlResolver } from './url-resolver.js';
import { markdownDocument, textDocument } from './plain-input.js';

export interface ContentOptions {
  url: string;
  /** Keep only the main content (the default), or convert the whole page. */
  onlyMainContent?: boolean;
}

export interface ContentResult {
  markdown: string;
  text: string;
  html: string;
  title: string;
  metadata: Record<string, string>;
}

/** Markdown, text and cleaned HTML of a page from one parse. */
export function convertHtml(html: string, options: ContentOptions): ContentResult {
  const tape = recordTape(html, options.onlyMainContent !== false);
  const urls = createUrlResolver(options.url, tape.head.baseHref);
  const selection = options.onlyMainContent === false ? selectFullPage(tape) : selectMainContent(tape);
  const { title, metadata } = pageMetadata(tape.head, urls);
  // Each output is rendered on first read, so a request for one format replays the tape once.
  let markdown: string | undefined;
  let text: string | undefined;
  let cleaned: string | undefined;
  return {
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
  };
}

export function htmlToMarkdown(html: string, options: ContentOptions): string {
  const tape = recordTape(html, options.onlyMainContent !== false);
  const urls = createUrlResolver(options.url, tape.head.baseHref);
  const selection = options.onlyMainContent === false ? selectFullPage(tape) : selectMainContent(tape);
  return renderMarkdown(tape, selection, urls);
}

export function extractPageMetadata(html: string, url: string): { title: string; metadata: Record<string, string> } {
  const tape = recordTape(html, false);
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
