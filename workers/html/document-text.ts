/**
 * A document's text, whole or as consecutive pieces.
 *
 * V8 puts a string over 128 KB (64K characters once any character needs two
 * bytes) in its large-object space, and each such allocation maps fresh
 * memory: on the machines measured, a 260 KB string cost about 1 ms to make
 * against 10 µs for one under the limit. A page is decoded into pieces under
 * that size (`decodeTextPieces`) and parsed a piece at a time, so reading a
 * page never makes the whole page one string; the few outputs that need it
 * whole (raw HTML, JSON from a JSON API, structured data) join it when asked.
 */
export type DocumentText = string | readonly string[];

/** The text as one string (joins the pieces: call only where the whole text is needed). */
export function wholeText(text: DocumentText): string {
  return typeof text === 'string' ? text : text.length === 1 ? text[0]! : text.join('');
}

/** The first `chars` characters of the text, without joining the rest. */
export function textStart(text: DocumentText, chars: number): string {
  if (typeof text === 'string') return text.slice(0, chars);
  let out = '';
  for (const piece of text) {
    if (out.length >= chars) break;
    out += piece.slice(0, chars - out.length);
  }
  return out;
}

/** The text's length in characters. */
export function textLength(text: DocumentText): number {
  if (typeof text === 'string') return text.length;
  let length = 0;
  for (const piece of text) length += piece.length;
  return length;
}

/** Characters either side of a boundary between pieces that `textMatches` tests together. */
const SEAM_CHARS = 128;

/**
 * Whether `pattern` matches somewhere in the text, without joining it: each
 * piece is tested, and each boundary between pieces with the SEAM_CHARS
 * characters before it and after it, so a match of up to SEAM_CHARS
 * characters that straddles a boundary (or several short pieces) is found.
 * For patterns without anchors whose matches are shorter than that (marker
 * words and phrases), the answer is the whole text's.
 */
export function textMatches(pattern: RegExp, text: DocumentText): boolean {
  if (typeof text === 'string') return pattern.test(text);
  // The last SEAM_CHARS characters before the current piece.
  let before = '';
  for (const piece of text) {
    if (pattern.test(piece)) return true;
    if (before && pattern.test(before + piece.slice(0, SEAM_CHARS))) return true;
    before = piece.length >= SEAM_CHARS ? piece.slice(-SEAM_CHARS) : (before + piece).slice(-SEAM_CHARS);
  }
  return false;
}

/** The text's first `chars` characters: the string cut, or the pieces that hold them with the last one cut to fit. */
export function textWithin(text: DocumentText, chars: number): DocumentText {
  if (typeof text === 'string') return text.slice(0, chars);
  const out: string[] = [];
  let length = 0;
  for (const piece of text) {
    if (length + piece.length >= chars) {
      out.push(piece.slice(0, chars - length));
      return out;
    }
    out.push(piece);
    length += piece.length;
  }
  return out;
}

/** The text's pieces, a whole string being one. */
export function textPieces(text: DocumentText): readonly string[] {
  return typeof text === 'string' ? [text] : text;
}
