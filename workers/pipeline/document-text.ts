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
