import { Marked } from 'marked';
import { limitMarkdownNesting } from '../nesting-guard.js';
import { recordPage } from './html-tape.js';
import { selectFullPage } from './main-content.js';
import { renderText } from './markdown-emitter.js';
import { renderHtml } from './html-emitter.js';
import { createUrlResolver } from './url-resolver.js';
import type { ContentResult } from './index.js';

const escapeHtml = (s: string): string => s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));

/** Drops trailing spaces and tabs; a /[ \t]+$/m replace is quadratic on lines with long blank runs. */
function trimSpacesAtEnd(line: string): string {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
  return end === line.length ? line : line.slice(0, end);
}

export function normaliseLines(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map(trimSpacesAtEnd)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Normalised plain text as HTML: a `<p>` per blank-line-separated paragraph, its line breaks kept. */
export function paragraphsHtml(text: string, asHtml: (text: string) => string = escapeHtml): string {
  return text === '' ? '' : text.split(/\n\n+/).map((p) => `<p>${asHtml(p).replace(/\n/g, '<br>')}</p>`).join('\n');
}

/**
 * Plain text is already text; as Markdown it is shown as written (its
 * paragraphs are paragraphs), and as HTML each blank-line-separated paragraph
 * becomes a `<p>` with its line breaks kept.
 */
export function textDocument(input: string): ContentResult {
  const text = normaliseLines(input);
  const html = paragraphsHtml(text);
  const firstLine = text.split('\n', 1)[0] ?? '';
  return { markdown: text, text, html, title: firstLine.length <= 200 ? firstLine : '', metadata: {} };
}

/**
 * Markdown is rendered with marked (GFM), then the HTML goes through the same
 * cleaning as a fetched page: raw HTML inside the Markdown loses scripts and
 * handlers, and relative links become absolute against the URL.
 */
export function markdownDocument(input: string, url: string): ContentResult {
  const markdown = normaliseLines(input);
  const rendered = new Marked({ gfm: true, breaks: false }).parse(limitMarkdownNesting(markdown), { async: false });
  const { tape } = recordPage(rendered, false);
  const urls = createUrlResolver(url, '');
  const selection = selectFullPage(tape);
  const h1 = tape.tag.indexOf('h1');
  const title = h1 >= 0 ? renderText(tape, { root: h1, removed: selection.removed }, urls) : '';
  return { markdown, text: renderText(tape, selection, urls), html: renderHtml(tape, selection, urls), title, metadata: {} };
}
