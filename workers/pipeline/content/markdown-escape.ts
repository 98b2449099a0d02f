/**
 * Backslash-escapes text so that a Markdown reader shows it literally, and no
 * more than that: an underscore inside a word or a lone `#` mid-line stays as
 * it is, because it cannot start emphasis or a heading.
 */
const NEEDS_ESCAPE = /[\\*_`[\]<&~]/;
const INLINE_SPECIAL = /\\|\*|`|\[|\]|~~|<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const LINE_START = /^(?:#{1,6}(?=\s|$)|>|[-+](?=\s|$)|=+(?=\s*$)|\d{1,9}[.)](?=\s|$)|```|~~~)/;

function escapeInlineChar(match: string): string {
  if (match === '&') return '&amp;';
  if (match === '~~') return '\\~\\~';
  return `\\${match}`;
}

export function escapeMarkdownText(text: string, atLineStart: boolean): string {
  let escaped = NEEDS_ESCAPE.test(text) ? text.replace(INLINE_SPECIAL, escapeInlineChar) : text;
  if (atLineStart) {
    const match = LINE_START.exec(escaped);
    if (match !== null) {
      const token = match[0];
      if (/^\d/.test(token)) escaped = `${token.slice(0, -1)}\\${escaped.slice(token.length - 1)}`;
      else escaped = `\\${escaped}`;
    }
  }
  return escaped;
}

/** A code span whose fence is longer than any run of backticks inside it. */
export function codeSpan(code: string): string {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < code.length; i++) {
    if (code.charCodeAt(i) === 96) {
      run++;
      if (run > longest) longest = run;
    } else run = 0;
  }
  const fence = '`'.repeat(longest + 1);
  const pad = code.startsWith('`') || code.endsWith('`') || (code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${code}${pad}${fence}`;
}

/** The fence for a code block: three backticks, or more than the longest run inside. */
export function codeFence(code: string): string {
  let longest = 0;
  const runs = code.match(/`{3,}/g);
  if (runs) for (const r of runs) longest = Math.max(longest, r.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Link destinations keep their characters, but spaces and unbalanced parentheses would end them early. */
export function linkDestination(url: string): string {
  let out = url.replace(/ /g, '%20');
  let depth = 0;
  let balanced = true;
  for (let i = 0; i < out.length && balanced; i++) {
    const c = out.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41 && --depth < 0) balanced = false;
  }
  if (!balanced || depth !== 0) out = out.replace(/\(/g, '%28').replace(/\)/g, '%29');
  return out;
}

export function linkTitle(title: string): string {
  return title.replace(/\s+/g, ' ').trim().replace(/["\\]/g, '\\$&');
}
