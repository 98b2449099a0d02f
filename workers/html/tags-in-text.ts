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

/**
 * The content of each element named in `names` (lower case), in order:
 * from `<name` (and whatever follows up to the first `>`) to the first
 * `</name>` after it, case aside, as the pattern
 * `<(names)[^>]*>([\s\S]*?)<\/\1>` reads them. An element with no end tag
 * after it is skipped, and so is every later one of its name (none has an
 * end tag after it either), which keeps the reading linear.
 */
export function* elementContents(text: string, names: readonly string[]): Generator<string> {
  const open = new RegExp(`<(${names.join('|')})`, 'gi');
  const unclosed = new Set<string>();
  const ends = new Map<string, RegExp>();
  let from = 0;
  while (unclosed.size < names.length) {
    open.lastIndex = from;
    const start = open.exec(text);
    if (start === null) return;
    const name = start[1]!.toLowerCase();
    from = start.index + 1;
    if (unclosed.has(name)) continue;
    const gt = text.indexOf('>', start.index + start[0].length);
    // No `>` after this opening, nor after any later one.
    if (gt < 0) return;
    let end = ends.get(name);
    if (end === undefined) ends.set(name, (end = new RegExp(`</${name}>`, 'gi')));
    end.lastIndex = gt + 1;
    const close = end.exec(text);
    if (close === null) {
      unclosed.add(name);
      continue;
    }
    yield text.slice(gt + 1, close.index);
    from = close.index + close[0].length;
  }
}
