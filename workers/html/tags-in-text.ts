/**
 * Tags inside text that is not parsed as a page (a JSON-LD body or
 * description), read in linear time. A pattern like `<[^>]*>` tried on text
 * with many `<` and no `>` after them reads to the end from every `<`:
 * a hostile page's 64 KB description took seconds. Past the text's last `>`
 * no tag can end, so nothing there is searched.
 */

/** The text with every `<...>` replaced by `by`. */
export function replaceTags(text: string, by: string): string {
  const end = text.lastIndexOf('>') + 1;
  return end === 0 ? text : text.slice(0, end).replace(/<[^>]*>/g, by) + text.slice(end);
}

/**
 * Whether the text holds a tag opened with one of the names `opening`
 * matches (`<name` up to a word boundary) and closed by a `>` after it. When
 * the first such opening has no `>` after it, no later one has.
 */
export function hasTag(text: string, opening: RegExp): boolean {
  const open = opening.exec(text);
  return open !== null && text.includes('>', open.index + open[0].length);
}
