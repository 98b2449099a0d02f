import { lastDescendant, subtreeText, type Tape } from './html-tape.js';
import { BLOCK, CONTROL } from './tag-kinds.js';

/** Meta keys a page states its summary under. */
const DESCRIPTION_KEYS = new Set(['description', 'og:description', 'twitter:description']);
/** A summary shorter than this is a slogan or a list of keywords rather than a standfirst. */
const MIN_DESCRIPTION_CHARS = 60;
const MAX_DESCRIPTION_CHARS = 1500;
/** A standfirst has (almost) no links. */
const MAX_LINK_SHARE = 0.05;

/**
 * The block that is the page's standfirst by the page's own word: its text is
 * the summary the page gives in its description meta (`description`,
 * `og:description`). Articles set that summary as the lead under their title,
 * often inside the article header, where neither the score nor the lead
 * search of `leadBefore` reaches it (the header is furniture, a `teaser`
 * class names it like a card), or inside the content under a class that gets
 * it cut. Only a block with no block inside it and almost no links counts,
 * whose text is the whole summary (or, for a summary cut short with an
 * ellipsis, begins with it); the last one before the end of the content
 * wins. The text is read only for blocks whose character count fits, so the
 * pass is one look per element.
 */
export function describedBlock(tape: Tape, root: number): number {
  const summaries = descriptions(tape);
  if (summaries.length === 0) return -1;
  const { kind, chars, linkChars, blocks } = tape;
  const rootClose = tape.closeAt[root]!;
  let found = -1;
  for (let id = 0; id < tape.tag.length && tape.openAt[id]! < rootClose; id++) {
    if (!(kind[id]! & BLOCK) || kind[id]! & CONTROL || blocks[id]! > 0) continue;
    const c = chars[id]!;
    if (c < MIN_DESCRIPTION_CHARS || linkChars[id]! > c * MAX_LINK_SHARE) continue;
    let text: string | undefined;
    for (const summary of summaries) {
      if (summary.cut ? c < summary.count : c !== summary.count) continue;
      text ??= compactText(tape, id);
      if (summary.cut ? text.startsWith(summary.text) : text === summary.text) {
        found = id;
        break;
      }
    }
  }
  return found;
}

/**
 * Keeps a block inside the content that a pruning pass cut: where it or a
 * block around it was removed, the way down to it is kept and everything
 * else in the removed block stays out.
 */
export function keepInside(tape: Tape, root: number, block: number, removed: Uint8Array): void {
  const { parent } = tape;
  let child = block;
  for (let a = block; a > root; child = a, a = parent[a]!) {
    if (a !== block && removed[a]) {
      removed[a] = 0;
      // The other children of a block that was removed stay out.
      const last = lastDescendant(tape, a);
      for (let sibling = a + 1; sibling <= last; sibling = lastDescendant(tape, sibling) + 1) {
        if (sibling !== child) removed[sibling] = 1;
      }
    }
  }
  removed[block] = 0;
}

interface Summary {
  /** Lower case, without whitespace. */
  text: string;
  /** Characters as `Tape.chars` counts them. */
  count: number;
  /** Ended in an ellipsis: the block only has to begin with it. */
  cut: boolean;
}

function descriptions(tape: Tape): Summary[] {
  const summaries: Summary[] = [];
  for (const { key, value } of tape.head.meta) {
    if (!DESCRIPTION_KEYS.has(key)) continue;
    let text = compact(value);
    const cut = ELLIPSIS.test(text);
    if (cut) text = text.replace(ELLIPSIS, '');
    const count = text.length;
    if (count < MIN_DESCRIPTION_CHARS || count > MAX_DESCRIPTION_CHARS) continue;
    if (!summaries.some((s) => s.text === text)) summaries.push({ text, count, cut });
  }
  return summaries;
}

/** The characters `Tape.chars` does not count (code units up to the space). */
const SPACE = /[\u0000-\u0020]+/g;
const ELLIPSIS = /(?:…|\.\.\.)$/;

function compact(text: string): string {
  return text.replace(SPACE, '').toLowerCase();
}

function compactText(tape: Tape, id: number): string {
  return compact(subtreeText(tape, id));
}
