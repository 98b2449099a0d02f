/**
 * The HTML a document that is not a web page (a PDF's text layer, an
 * image's OCR text) is written as, so the content pipeline turns it into
 * every output format like any page.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** A whole document: the title, and body elements already written as HTML. */
export function documentHtml(title: string, elements: readonly string[]): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><article>\n${elements.join('\n')}\n</article></body></html>`;
}

/** Joins the lines of one paragraph, mending a word hyphenated across a line break. */
export function joinLines(lines: readonly string[]): string {
  let out = '';
  for (const line of lines) {
    if (out === '') out = line;
    else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(line)) out = out.slice(0, -1) + line;
    else out += ` ${line}`;
  }
  return out;
}
