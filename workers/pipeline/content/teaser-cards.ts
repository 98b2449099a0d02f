import type { Tape } from './html-tape.js';

/** How far up from a linked picture its card is looked for. */
const CARD_LEVELS = 4;
/** Tape events a card may span: a picture, a title, a line of teaser text and a "read more" link. */
const MAX_CARD_OPS = 240;
/** Text a card may hold; more is an article passage with a linked picture in it. */
const MAX_CARD_CHARS = 400;
const MAX_LINKED_PICTURE_OPS = 48;
const IMAGE_FILE = /\.(?:jpe?g|png|gif|webp|avif|svg)(?:[?#]|$)/i;

/**
 * Cuts teaser cards set inside the article: a picture linking to another page
 * together with a title or "read more" link to the same page and at most a
 * line of text. One address linked from both the picture and the words is
 * what a card pointing elsewhere looks like; a picture in the article links
 * to itself (an image file) or to nothing. Each linked picture looks at a
 * bounded number of ancestors of bounded size, so the work stays linear.
 */
export function dropTeaserCards(tape: Tape, root: number, removed: Uint8Array): void {
  const { ops, closeAt, openAt, tag, attrs, parent } = tape;
  for (let i = openAt[root]! + 1; i < closeAt[root]!; i++) {
    const op = ops[i]!;
    if ((op & 3) !== 0) continue;
    const id = op >> 2;
    if (removed[id]) {
      i = closeAt[id]!;
      continue;
    }
    if (tag[id] !== 'a') continue;
    const href = cardHref(attrs[id]!.href);
    if (href === '' || closeAt[id]! - openAt[id]! > MAX_LINKED_PICTURE_OPS || !holdsPicture(tape, id)) continue;
    let card = -1;
    let up = parent[id]!;
    for (let level = 0; level < CARD_LEVELS && up > root; level++, up = parent[up]!) {
      if (closeAt[up]! - openAt[up]! > MAX_CARD_OPS || tape.chars[up]! > MAX_CARD_CHARS) break;
      const links = linksTo(tape, up, href);
      if (links < 0) break;
      if (links > 0) card = up;
    }
    if (card >= 0) {
      removed[card] = 1;
      i = closeAt[card]!;
    }
  }
}

function cardHref(href: string | undefined): string {
  const h = href?.trim() ?? '';
  return h === '' || h.startsWith('#') || h.startsWith('javascript:') || IMAGE_FILE.test(h) ? '' : h;
}

function holdsPicture(tape: Tape, id: number): boolean {
  for (let i = tape.openAt[id]! + 1; i < tape.closeAt[id]!; i++) {
    const op = tape.ops[i]!;
    if ((op & 3) === 0 && tape.tag[op >> 2] === 'img') return true;
  }
  return false;
}

/**
 * Within `id`: -1 when a link points to another address than `href`, else
 * the number of links with words (not only a picture) that point to `href`.
 */
function linksTo(tape: Tape, id: number, href: string): number {
  let worded = 0;
  for (let i = tape.openAt[id]! + 1; i < tape.closeAt[id]!; i++) {
    const op = tape.ops[i]!;
    if ((op & 3) !== 0) continue;
    const d = op >> 2;
    if (tape.tag[d] !== 'a' || tape.attrs[d]!.href === undefined) continue;
    if (tape.attrs[d]!.href!.trim() !== href) return -1;
    if (tape.chars[d]! > 0) worded++;
  }
  return worded;
}
