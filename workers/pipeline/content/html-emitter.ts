import type { Tape } from './html-tape.js';
import { walkSelection, type Selection, type TapeVisitor } from './tape-walk.js';
import type { UrlResolver } from './url-resolver.js';
import { VOID } from './tag-kinds.js';
import { codeLanguage } from './code-language.js';
import { imageSource, isTrackingPixel } from './image-source.js';
import { withoutTrackingParams } from './tracking-params.js';

/**
 * Serialises the selected part of a page as clean HTML: only presentational
 * attributes that carry meaning are kept (so no event handlers, inline
 * styles, classes or data attributes), addresses are absolute and stripped of
 * tracking parameters, and tracking pixels are dropped.
 */
const KEPT_ATTRIBUTES: Record<string, readonly string[]> = {
  a: ['title'],
  img: ['alt', 'title', 'width', 'height'],
  td: ['colspan', 'rowspan'],
  th: ['colspan', 'rowspan', 'scope'],
  ol: ['start', 'reversed', 'type'],
  li: ['value'],
  time: ['datetime'],
  abbr: ['title'],
  col: ['span'],
  colgroup: ['span'],
};
const GLOBAL_ATTRIBUTES = ['lang', 'dir'];
const URL_ATTRIBUTES: Record<string, string> = { a: 'href', blockquote: 'cite', q: 'cite', del: 'cite', ins: 'cite' };

function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

function escapeAttribute(value: string): string {
  return value.replace(/[&"]/g, (c) => (c === '&' ? '&amp;' : '&quot;'));
}

class HtmlEmitter implements TapeVisitor {
  out = '';

  constructor(
    private readonly tape: Tape,
    private readonly urls: UrlResolver,
  ) {}

  open(id: number): void {
    const tag = this.tape.tag[id]!;
    const attrs = this.tape.attrs[id]!;
    let written = `<${tag}`;
    if (tag === 'img') {
      const source = isTrackingPixel(attrs) ? '' : imageSource(attrs);
      const src = source ? this.urls.resolve(source) : '';
      if (!src) return;
      written += ` src="${escapeAttribute(src)}"`;
    }
    const urlAttribute = URL_ATTRIBUTES[tag];
    if (urlAttribute !== undefined && attrs[urlAttribute] !== undefined) {
      const url = this.urls.resolve(attrs[urlAttribute]);
      if (url) written += ` ${urlAttribute}="${escapeAttribute(withoutTrackingParams(url))}"`;
    }
    if (tag === 'pre' || tag === 'code') {
      const language = codeLanguage(attrs);
      if (language) written += ` class="language-${escapeAttribute(language)}"`;
    }
    for (const name of GLOBAL_ATTRIBUTES) if (attrs[name] !== undefined) written += ` ${name}="${escapeAttribute(attrs[name])}"`;
    const kept = KEPT_ATTRIBUTES[tag];
    if (kept !== undefined) for (const name of kept) if (attrs[name] !== undefined) written += ` ${name}="${escapeAttribute(attrs[name])}"`;
    this.out += `${written}>`;
  }

  close(id: number): void {
    if (this.tape.kind[id]! & VOID) return;
    this.out += `</${this.tape.tag[id]}>`;
  }

  text(text: string): void {
    this.out += escapeText(text);
  }
}

export function renderHtml(tape: Tape, selection: Selection, urls: UrlResolver): string {
  const emitter = new HtmlEmitter(tape, urls);
  walkSelection(tape, selection, emitter);
  return emitter.out.trim();
}
