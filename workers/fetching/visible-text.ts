import { Parser, type Handler } from 'htmlparser2';
import { textPieces, type DocumentText } from '../html/document-text.js';
import { RunSkippingTokenizer } from '../html/run-skipping-tokenizer.js';

/** Elements whose text a reader never sees. */
export const INVISIBLE: ReadonlySet<string> = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'svg']);

/** Characters of markup parsed between two looks at whether the reader has seen enough. */
const SLICE_CHARS = 16 * 1024;

/**
 * Parses `html` without building a tree, a slice at a time, and stops as
 * soon as `enough()` says the handler has seen what it needs: the checks
 * made on every fetched page settle within the first kilobytes of a page
 * with content, whatever its size.
 */
export function parseUntil(html: DocumentText, handler: Partial<Handler>, enough: () => boolean): void {
  const parser = new Parser(handler, { decodeEntities: true, Tokenizer: RunSkippingTokenizer });
  for (const piece of textPieces(html)) {
    for (let at = 0; at < piece.length; at += SLICE_CHARS) {
      parser.write(piece.slice(at, at + SLICE_CHARS));
      if (enough()) return;
    }
  }
  parser.end();
}

/**
 * Whether the page shows at least `chars` characters of text to a reader
 * (outside scripts, styles, templates, SVG and the head), counted as the
 * text would read with its runs of spaces collapsed and its ends trimmed.
 */
export function visibleTextReaches(html: DocumentText, chars: number): boolean {
  let visible = 0;
  let hiddenDepth = 0;
  /** Whether the last character counted was a space (or nothing is counted yet): a space after it is the same run. */
  let afterSpace = true;
  // A trailing space is not text the page shows.
  const shown = () => visible - (afterSpace && visible > 0 ? 1 : 0);
  parseUntil(
    html,
    {
      onopentag(name) {
        if (INVISIBLE.has(name)) hiddenDepth++;
      },
      ontext(text) {
        if (hiddenDepth > 0) return;
        let collapsed = text.replace(/\s+/g, ' ');
        if (afterSpace && collapsed.startsWith(' ')) collapsed = collapsed.slice(1);
        if (collapsed.length === 0) return;
        visible += collapsed.length;
        afterSpace = collapsed.endsWith(' ');
      },
      onclosetag(name) {
        if (INVISIBLE.has(name)) hiddenDepth = Math.max(0, hiddenDepth - 1);
      },
    },
    () => shown() >= chars,
  );
  return shown() >= chars;
}
