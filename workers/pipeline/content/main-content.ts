import type { Tape } from './html-tape.js';
import type { Selection } from './tape-walk.js';
import { ARIA_HIDDEN, ARTICLE_BODY, CONTENT, DISCUSSION, JUNK, LIKELY_JUNK, RELATED, ROLE_FURNITURE, ROLE_MAIN } from './boilerplate-patterns.js';
import { BLOCK, CONTAINER, FURNITURE, HEADING, PARAGRAPH } from './tag-kinds.js';

/** The whole page, less what is never content (scripts, hidden elements and form controls are already out). */
export function selectFullPage(tape: Tape): Selection {
  const removed = new Uint8Array(tape.tag.length);
  // The head renders nothing; its meta and link elements would only be noise in the HTML output.
  for (let id = 0; id < tape.tag.length; id++) if (tape.tag[id] === 'head') removed[id] = 1;
  return { root: -1, removed };
}

const MIN_PARAGRAPH_CHARS = 25;
const LEAF_PARAGRAPHS = new Set(['p', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'dd', 'dt', 'caption', 'figcaption', 'summary', 'address', 'th']);

/**
 * Finds the element holding the page's main content and the furniture to cut
 * out of it, from the statistics recorded with the tape (no second parse, no
 * DOM), in linear passes over the element rows:
 *
 * 1. furniture marks from tags, roles and class/id words, inherited downwards;
 * 2. paragraph scores (length, commas, link density) added to their ancestors,
 *    as Readability does, with a bonus for article containers;
 * 3. the best candidate, promoted to an ancestor when the content is split
 *    over several strong blocks, widened to its parent when its siblings are
 *    prose too, joined with a lead paragraph set apart just before it, and
 *    pruned of furniture and link-heavy blocks.
 */
export function selectMainContent(tape: Tape): Selection {
  const { junk, dead, score, best, bestScore } = analyseContent(tape);
  const n = tape.tag.length;
  const { parent } = tape;
  if (best < 0) return { root: -1, removed: dead };

  const top = climb(tape, promote(tape, best, score, dead));
  let root = siblingsCarryContent(tape, top, score, dead, bestScore) ? parent[top]! : top;
  // Elements on the way from the root down to what is kept; their other children are cut.
  const onPath = new Uint8Array(n);
  const kept = new Uint8Array(n);
  kept[top] = 1;
  if (root !== top) {
    onPath[root] = 1;
    const last = lastDescendant(tape, root);
    for (let sibling = root + 1; sibling <= last; sibling = lastDescendant(tape, sibling) + 1) {
      if (!dead[sibling] && keepSibling(tape, sibling, score, bestScore)) kept[sibling] = 1;
    }
  }
  const lead = leadBefore(tape, root, dead);
  if (lead >= 0) {
    kept[lead] = 1;
    const aboveRoot = new Set<number>();
    for (let a = root; a >= 0; a = parent[a]!) aboveRoot.add(a);
    let meet = lead;
    while (!aboveRoot.has(meet)) meet = parent[meet]!;
    for (let a = parent[root]!; a !== meet && a >= 0; a = parent[a]!) onPath[a] = 1;
    for (let a = parent[lead]!; a !== meet && a >= 0; a = parent[a]!) onPath[a] = 1;
    onPath[meet] = 1;
    root = meet;
  }
  const removed = new Uint8Array(n);
  const end = lastDescendant(tape, root);
  for (let id = root + 1; id <= end; id++) {
    const p = parent[id]!;
    const cut = onPath[p] === 1 && kept[p] === 0 && onPath[id] === 0 && kept[id] === 0;
    if (cut || junk[id] || isLinkList(tape, id)) {
      removed[id] = 1;
      id = lastDescendant(tape, id);
    }
  }
  return { root, removed };
}

/**
 * A lead paragraph just before the content, one or two levels up: articles
 * often set their standfirst apart from the body (a `lead`, `perex`,
 * `excerpt` block in the header). Prose only: no links, no headings.
 */
function leadBefore(tape: Tape, root: number, dead: Uint8Array): number {
  const { parent, tag } = tape;
  let anchor = root;
  for (let level = 0; level < 3; level++) {
    const p = parent[anchor]!;
    if (p < 0 || tag[p] === 'body' || tag[p] === 'html') return -1;
    let candidate = -1;
    for (let sibling = p + 1; sibling < anchor; sibling = lastDescendant(tape, sibling) + 1) {
      if (isLead(tape, sibling, dead)) candidate = sibling;
    }
    if (candidate >= 0) return candidate;
    anchor = p;
  }
  return -1;
}

function isLead(tape: Tape, id: number, dead: Uint8Array): boolean {
  if (dead[id]) return false;
  const c = tape.chars[id]!;
  if (c < 60 || c > 1500 || tape.linkChars[id]! > c * 0.05) return false;
  const end = lastDescendant(tape, id);
  for (let d = id; d <= end; d++) {
    if (tape.kind[d]! & (HEADING | FURNITURE) || dead[d]) return false;
  }
  return tape.blocks[id]! <= 3;
}

export interface ContentAnalysis {
  /** Elements that are furniture themselves. */
  junk: Uint8Array;
  /** Elements that are furniture or inside furniture. */
  dead: Uint8Array;
  /** Final candidate scores (0 for elements that are not candidates). */
  score: Float64Array;
  best: number;
  bestScore: number;
}

/** The furniture marks and candidate scores behind `selectMainContent`. */
export function analyseContent(tape: Tape): ContentAnalysis {
  const n = tape.tag.length;
  const { parent, kind, hints, chars, linkChars, tag } = tape;
  let total = 0;
  for (let id = 0; id < n; id++) if (parent[id] === -1) total += chars[id]!;

  // Whether a subtree holds an element marked as the main content; class words never cut such a subtree.
  const holdsMain = new Uint8Array(n);
  for (let id = n - 1; id >= 0; id--) {
    const h = hints[id]!;
    const marked = tag[id] === 'main' || (h & (ROLE_MAIN | ARTICLE_BODY)) !== 0 || (tag[id] === 'article' && (h & (JUNK | RELATED | DISCUSSION)) === 0);
    if (marked) holdsMain[id] = 1;
    const p = parent[id]!;
    if (p >= 0 && holdsMain[id]) holdsMain[p] = 1;
  }

  const junk = new Uint8Array(n);
  const dead = new Uint8Array(n);
  const inContainer = new Uint8Array(n);
  for (let id = 0; id < n; id++) {
    const p = parent[id]!;
    const h = hints[id]!;
    const container = (kind[id]! & CONTAINER) !== 0 || (h & ARTICLE_BODY) !== 0;
    inContainer[id] = container || (p >= 0 && inContainer[p] === 1) ? 1 : 0;
    if (isJunk(id, tape, total, p >= 0 && inContainer[p] === 1, holdsMain[id] === 1)) junk[id] = 1;
    dead[id] = junk[id] === 1 || (p >= 0 && dead[p] === 1) ? 1 : 0;
  }

  const score = new Float64Array(n);
  for (let id = 0; id < n; id++) {
    if (dead[id] || !(kind[id]! & PARAGRAPH)) continue;
    const own = tape.ownChars[id]!;
    if (own < MIN_PARAGRAPH_CHARS) continue;
    const density = tape.ownLinkChars[id]! / own;
    const value = (1 + tape.ownCommas[id]! + Math.min(Math.floor(own / 100), 3)) * (1 - density);
    // Text directly in a container (a div used as a paragraph) scores the container itself, as if wrapped in a <p>.
    let ancestor = LEAF_PARAGRAPHS.has(tag[id]!) ? parent[id]! : id;
    for (let level = 0; level < 5 && ancestor >= 0; level++) {
      score[ancestor]! += level === 0 ? value : level === 1 ? value / 2 : value / (level * 3);
      ancestor = parent[ancestor]!;
    }
  }

  let best = -1;
  let bestScore = 0;
  for (let id = 0; id < n; id++) {
    if (score[id] === 0 || dead[id]) continue;
    const c = chars[id]!;
    const density = c > 0 ? linkChars[id]! / c : 0;
    const final = (score[id]! + tagWeight(tag[id]!) + classWeight(hints[id]!)) * (1 - density);
    score[id] = final;
    if (final > bestScore) {
      bestScore = final;
      best = id;
    }
  }
  return { junk, dead, score, best, bestScore };
}

function isJunk(id: number, tape: Tape, total: number, insideContainer: boolean, holdsMain: boolean): boolean {
  const h = tape.hints[id]!;
  const k = tape.kind[id]!;
  const c = tape.chars[id]!;
  if (h & ARTICLE_BODY || (total > 0 && c > total * 0.6)) return false;
  if (k & FURNITURE) {
    const name = tape.tag[id]!;
    if ((name === 'header' || name === 'footer') && insideContainer) return name === 'footer';
    return true;
  }
  if (h & (ROLE_FURNITURE | ARIA_HIDDEN)) return !holdsMain;
  if (holdsMain) return false;
  if (h & DISCUSSION) return true;
  // Wrappers misnamed after a widget they once held still read as prose: much unlinked text.
  const prose = c - tape.linkChars[id]! > 400 && tape.linkChars[id]! < c * 0.25;
  if (h & (JUNK | RELATED) && !(h & (CONTENT | ROLE_MAIN))) return !prose;
  if (h & LIKELY_JUNK && !(h & CONTENT) && (c < 400 || (c > 0 && tape.linkChars[id]! / c > 0.5))) return true;
  return false;
}

function tagWeight(name: string): number {
  switch (name) {
    case 'div':
    case 'article':
    case 'main':
    case 'section':
      return 5;
    case 'pre':
    case 'td':
    case 'blockquote':
      return 3;
    case 'address':
    case 'ol':
    case 'ul':
    case 'dl':
    case 'dd':
    case 'dt':
    case 'li':
    case 'form':
      return -3;
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
    case 'th':
      return -5;
    default:
      return 0;
  }
}

function classWeight(h: number): number {
  let weight = 0;
  if (h & (CONTENT | ROLE_MAIN)) weight += 25;
  if (h & ARTICLE_BODY) weight += 50;
  if (h & (JUNK | RELATED | DISCUSSION)) weight -= 25;
  return weight;
}

/** Last element id inside the subtree of `id`: the one opened last, since ids follow opening order. */
function lastDescendant(tape: Tape, id: number): number {
  const { ops } = tape;
  for (let i = tape.closeAt[id]! - 1; i > tape.openAt[id]!; i--) {
    const op = ops[i]!;
    if ((op & 3) === 0) return op >> 2;
  }
  return id;
}

/**
 * Readability's two promotions of the best candidate: to the nearest ancestor
 * holding three of the other strong candidates (content split over several
 * blocks), else to an ancestor that scores higher than the way up to it.
 */
function promote(tape: Tape, best: number, score: Float64Array, dead: Uint8Array): number {
  const { parent, tag, openAt, closeAt } = tape;
  const bestScore = score[best]!;
  const strong: number[] = [];
  for (let id = 0; id < score.length; id++) if (id !== best && !dead[id] && score[id]! >= bestScore * 0.7) strong.push(id);
  strong.sort((a, b) => score[b]! - score[a]!);
  const alternatives = strong.slice(0, 5);
  if (alternatives.length >= 3) {
    for (let a = parent[best]!; a >= 0 && tag[a] !== 'body' && tag[a] !== 'html'; a = parent[a]!) {
      let held = 0;
      for (const x of alternatives) if (openAt[a]! < openAt[x]! && closeAt[x]! < closeAt[a]!) held++;
      if (held >= 3) return a;
    }
  }
  let lastScore = bestScore;
  const threshold = bestScore / 3;
  for (let a = parent[best]!; a >= 0 && tag[a] !== 'body' && tag[a] !== 'html'; a = parent[a]!) {
    const s = score[a]!;
    if (s === 0) continue;
    if (s < threshold) break;
    if (s > lastScore) return a;
    lastScore = s;
  }
  return best;
}

/** Climbs from the best element while its parent holds no more text than it does (wrappers). */
function climb(tape: Tape, best: number): number {
  let top = best;
  while (true) {
    const p = tape.parent[top]!;
    if (p < 0 || tape.tag[p] === 'body' || tape.tag[p] === 'html' || tape.chars[p]! > tape.chars[top]!) return top;
    top = p;
  }
}

/**
 * Readability's sibling rule, seen from the parent: when the best element's
 * siblings also score well (an article split over several containers), the
 * parent becomes the root and the weak siblings are cut.
 */
function siblingsCarryContent(tape: Tape, top: number, score: Float64Array, dead: Uint8Array, bestScore: number): boolean {
  const p = tape.parent[top]!;
  if (p < 0 || tape.tag[p] === 'html') return false;
  const last = lastDescendant(tape, p);
  for (let sibling = p + 1; sibling <= last; sibling = lastDescendant(tape, sibling) + 1) {
    if (sibling !== top && !dead[sibling] && tape.chars[sibling]! > 0 && keepSibling(tape, sibling, score, bestScore)) return true;
  }
  return false;
}

const SENTENCE_END = /[.!?。！？](?:\s|$)/;

/** Readability's test for a sibling of the best element: it scores well itself, or it is a real paragraph. */
function keepSibling(tape: Tape, id: number, score: Float64Array, bestScore: number): boolean {
  if (score[id]! >= Math.max(10, bestScore * 0.2)) return true;
  const c = tape.chars[id]!;
  if (c === 0) return !(tape.kind[id]! & BLOCK);
  const density = tape.linkChars[id]! / c;
  // A block of several paragraphs of prose continues the article (content split over sections).
  if (c - tape.linkChars[id]! > 200 && density < 0.15) return true;
  if (tape.tag[id] !== 'p' && tape.blocks[id]! > 0) return false;
  if (c > 80) return density < 0.25;
  return density === 0 && SENTENCE_END.test(lastText(tape, id));
}

/** The last text inside an element (enough to see whether a short paragraph ends a sentence). */
function lastText(tape: Tape, id: number): string {
  for (let i = tape.closeAt[id]! - 1; i > tape.openAt[id]!; i--) {
    const op = tape.ops[i]!;
    if ((op & 3) === 2) {
      const text = tape.texts[op >> 2]!;
      if (text.trim() !== '') return text.trimEnd() + ' ';
    }
  }
  return '';
}

/** Blocks that are mostly links: menus, tag lists, "read also" lines. */
function isLinkList(tape: Tape, id: number): boolean {
  if (!(tape.kind[id]! & BLOCK)) return false;
  const c = tape.chars[id]!;
  if (c === 0) return false;
  const links = tape.linkChars[id]!;
  const density = links / c;
  // Much unlinked text means prose with many links (an archive page, a reference-rich article), not a menu.
  return (density > 0.6 && c - links < 300) || (density > 0.35 && c < 40);
}
