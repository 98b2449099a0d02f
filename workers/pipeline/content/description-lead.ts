import type { Tape } from './html-tape.js';
import { BLOCK, CONTROL } from './tag-kinds.js';

/** Meta keys a page states its summary under. */
const DESCRIPTION_KEYS = new Set(['description', 'og:description', 'twitter:description']);
/** A summary shorter than this is a slogan or a list of keywords rather than a standfirst. */
const MIN_DESCRIPTION_CHARS = 60;
const MAX_DESCRIPTION_CHARS = 1500;
/** A standfirst has (almost) no links. */
const MAX_LINK_SHARE = 0.05;

/**
 * The block before the content that is the page's standfirst by the page's
 * own word: its text is the summary the page gives in its description meta
 * (`description`, `og:description`). Articles set that summary as the lead
 * under their title, and often inside the article header, where neither the
 * score nor the lead search of `leadBefore` reaches it (the header is
 * furniture, a `teaser` class names it like a card). Only a block with no
 * block inside it counts, before the content and outside it, whose text is
 * the whole summary (or, for a summary cut short with an ellipsis, begins
 * with it). The text is read only for blocks whose character count fits, so
 * the pass is one look per element before the content.
 */
export function describedLead(tape: Tape, root: number): number {
  const summaries = descriptions(tape);
  if (summaries.length === 0) return -1;
  const { kind, chars, linkChars, blocks } = tape;
  const rootOpen = tape.openAt[root]!;
  let found = -1;
  for (let id = 0; id < root; id++) {
    if (tape.closeAt[id]! > rootOpen) continue;
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
    let spaceless = value.replace(SPACE, '');
    const cut = ELLIPSIS.test(spaceless);
    if (cut) spaceless = spaceless.replace(ELLIPSIS, '');
    const count = spaceless.length;
    if (count < MIN_DESCRIPTION_CHARS || count > MAX_DESCRIPTION_CHARS) continue;
    const text = spaceless.toLowerCase();
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
  let text = '';
  for (let i = tape.openAt[id]! + 1; i < tape.closeAt[id]!; i++) {
    const op = tape.ops[i]!;
    if ((op & 3) === 2) text += tape.texts[op >> 2]!;
  }
  return compact(text);
}
