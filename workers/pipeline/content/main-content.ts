import { lastDescendant, pageChars, subtreeText, textLess, type Tape } from './html-tape.js';
import type { Selection } from './tape-walk.js';
import { ARIA_HIDDEN, ARTICLE_BODY, AUTHOR, CAPTION, CONTENT, DISCUSSION, JUNK, LIKELY_JUNK, RELATED, ROLE_FURNITURE, ROLE_MAIN } from './boilerplate-patterns.js';
import { dropBoilerplateLines } from './boilerplate-lines.js';
import { MAX_CONSENT_BANNER_CHARS, namesConsentBanner } from '../../../common/consent-banners.js';
import { dropTeaserCards } from './teaser-cards.js';
import { describedBlock, keepInside } from './description-lead.js';
import { BLOCK, CONTAINER, CONTROL, FALLBACK, FURNITURE, HEADING, PARAGRAPH } from './tag-kinds.js';

/**
 * The whole page, less what is never content (scripts, hidden elements and
 * form controls are already out) and, with `removeBanners`, the consent
 * banners the page names as such (common/consent-banners.ts).
 */
export function selectFullPage(tape: Tape, removeBanners = false): Selection {
  const removed = new Uint8Array(tape.tag.length);
  for (let id = 0; id < tape.tag.length; id++) {
    // The head renders nothing; its meta and link elements would only be noise in the HTML output.
    if (tape.tag[id] === 'head') removed[id] = 1;
    else if (removeBanners && namesConsentBanner(tape.attrs[id]!) && subtreeText(tape, id).length < MAX_CONSENT_BANNER_CHARS) removed[id] = 1;
    else continue;
    id = lastDescendant(tape, id);
  }
  return { root: -1, removed };
}

const MIN_PARAGRAPH_CHARS = 25;
const FIGURE_BODIES = new Set(['img', 'picture', 'pre', 'table', 'blockquote']);
/** Author boxes are short; a bigger block named after its author is the article (a `author-jane` class on the post). */
const MAX_AUTHOR_BOX_CHARS = 1500;
/** Text an element needs before its class name counts in full toward its score. */
const CLASS_WEIGHT_FULL_CHARS = 500;
/** Longer headings read as prose set large rather than as the title of a section. */
const MAX_TITLE_CHARS = 60;
/** How many levels up from the content a lead is looked for. */
const LEAD_LEVELS = 5;
const LEAF_PARAGRAPHS = new Set(['p', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'dd', 'dt', 'caption', 'figcaption', 'summary', 'address', 'th']);

/**
 * Finds the element holding the page's main content and the furniture to cut
 * out of it, from the statistics recorded with the tape (no second parse, no
 * DOM), in linear passes over the element rows:
 *
 * 1. furniture marks from tags, roles and class/id words (captions, author
 *    boxes, comments, related links ...), inherited downwards;
 * 2. paragraph scores (length, commas, link density) added to their ancestors,
 *    as Readability does, with a bonus for article containers that counts
 *    only as far as they hold text;
 * 3. the best candidate, promoted to an ancestor when the content is split
 *    over several strong blocks, widened to its parent when its siblings are
 *    prose too, joined with a lead paragraph set apart just before it (the
 *    one whose text is the page's description first), and pruned of
 *    furniture, side forms and link-heavy blocks;
 * 4. one replay of what is kept, dropping headings left with an empty section.
 *
 * See docs/decisions/0007-main-content-signals.md for why each signal is there.
 */
export function selectMainContent(tape: Tape): Selection {
  const analysis = analyseContent(tape);
  // A page whose every paragraph sits in furniture by its marks (an article in an `aside`): the marks say nothing
  // about such a page, so its content is found by the paragraphs alone rather than answered empty.
  const selection = selectFrom(tape, analysis.best < 0 && textOutside(tape, analysis.dead) <= 0 ? analyseContent(tape, { furnitureMarks: false }) : analysis);
  return needsFallback(tape, selection) ? selectFrom(tape, analyseContent(tape, { noscript: true })) : selection;
}

/** Fallback (noscript) text a page needs before it is looked at, and how much more of it there must be than of the selection. */
const MIN_FALLBACK_CHARS = 500;
const FALLBACK_RATIO = 2;

/**
 * Whether the selection is next to nothing beside the page's noscript
 * content: the page is rendered by a script and its text is in the fallback.
 */
function needsFallback(tape: Tape, selection: Selection): boolean {
  let fallback = 0;
  for (let id = 0; id < tape.tag.length; id++) if (tape.kind[id]! & FALLBACK) fallback += tape.chars[id]!;
  if (fallback < MIN_FALLBACK_CHARS) return false;
  let selected = 0;
  if (selection.root >= 0) selected = tape.chars[selection.root]!;
  else selected = pageChars(tape);
  return selected * FALLBACK_RATIO < fallback;
}

function selectFrom(tape: Tape, analysis: ContentAnalysis): Selection {
  const { junk, dead, hardDead, caption, score, best, bestScore } = analysis;
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
  const described = describedBlock(tape, root);
  const inside = described > root;
  const lead = described >= 0 && !inside ? described : leadBefore(tape, root, leadBlockers(tape, hardDead));
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
  const bestOpen = tape.openAt[best]!;
  for (let id = root + 1; id <= end; id++) {
    const p = parent[id]!;
    const cut = onPath[p] === 1 && kept[p] === 0 && onPath[id] === 0 && kept[id] === 0;
    // A form beside the article is a rating, newsletter, login or comment box; a form around it (a page-wide ASP.NET form) stays.
    const sideForm = tape.tag[id] === 'form' && !(tape.openAt[id]! < bestOpen && bestOpen < tape.closeAt[id]!);
    const held = kept[id] === 1 || onPath[id] === 1;
    if (cut || (!held && (junk[id] || sideForm || isLinkList(tape, id)))) {
      removed[id] = 1;
      id = lastDescendant(tape, id);
    }
  }
  dropTeaserCards(tape, root, removed);
  dropBoilerplateLines(tape, root, removed, caption);
  if (inside) keepInside(tape, root, described, removed);
  dropEmptySections(tape, root, removed);
  return { root, removed, captionAlt: captionAlts(tape, root, removed, caption) };
}

/** The text of the page's body outside the marked elements (and outside its head). */
function textOutside(tape: Tape, marked: Uint8Array): number {
  return textLess(tape, 0, tape.tag.length - 1, pageChars(tape), (id) => marked[id] !== 0 || tape.tag[id] === 'head');
}

/** How far up from a cut caption its picture is looked for, in levels and in elements. */
const CAPTION_FIGURE_LEVELS = 3;
const CAPTION_FIGURE_ELEMENTS = 64;

/**
 * Images whose alt text repeats a caption that was cut: a picture's caption
 * is often its alt text too, and would come back in the Markdown through it.
 * The picture is looked for in a small figure around the caption, so the
 * work stays proportional to the captions' and figures' size.
 */
function captionAlts(tape: Tape, root: number, removed: Uint8Array, caption: Uint8Array): Uint8Array | undefined {
  let marks: Uint8Array | undefined;
  const end = lastDescendant(tape, root);
  for (let id = root + 1; id <= end; id++) {
    if (!removed[id]) continue;
    const last = lastDescendant(tape, id);
    if (caption[id]) {
      const text = captionText(tape, id);
      // The largest box around the caption, a few levels up, that is still figure-sized.
      let figure = id;
      for (let level = 0; level < CAPTION_FIGURE_LEVELS && tape.parent[figure]! > root; level++) {
        const up = tape.parent[figure]!;
        if (lastDescendant(tape, up) - up > CAPTION_FIGURE_ELEMENTS) break;
        figure = up;
      }
      const figureEnd = lastDescendant(tape, figure);
      if (text.length > 0) {
        for (let d = figure; d <= figureEnd; d++) {
          if (tape.tag[d] !== 'img') continue;
          const alt = comparableText(`${tape.attrs[d]!.alt ?? ''}`);
          if (alt.length > 0 && (text.includes(alt) || alt.includes(text))) (marks ??= new Uint8Array(tape.tag.length))[d] = 1;
        }
      }
    }
    id = last;
  }
  return marks;
}

function captionText(tape: Tape, id: number): string {
  return comparableText(subtreeText(tape, id));
}

function comparableText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * Removes headings left with nothing under them once the furniture is cut:
 * the "Related articles" or "More on this topic" title of a link list that
 * went, a "Comments" heading above a removed thread. A heading's section runs
 * to the next heading of the same or a higher rank; one replay of the kept
 * tape finds the empty ones, with at most six headings pending at a time.
 */
function dropEmptySections(tape: Tape, root: number, removed: Uint8Array): void {
  const { ops, texts, closeAt, kind, tag } = tape;
  const pending: number[] = [];
  const level = (id: number): number => tag[id]!.charCodeAt(1) - 48;
  let inHeading = -1;
  for (let i = tape.openAt[root]! + 1; i < closeAt[root]!; i++) {
    const op = ops[i]!;
    const type = op & 3;
    const index = op >> 2;
    if (type === 0) {
      if (removed[index] !== 0 || kind[index]! & CONTROL) {
        i = closeAt[index]!;
        continue;
      }
      if (inHeading >= 0) continue;
      if (kind[index]! & HEADING) {
        const l = level(index);
        while (pending.length > 0 && level(pending[pending.length - 1]!) >= l) removed[pending.pop()!] = 1;
        // A long heading or one that ends a sentence is prose set large (a pull quote, a standfirst), not a title.
        if (tape.chars[index]! <= MAX_TITLE_CHARS && !SENTENCE_END.test(lastText(tape, index))) pending.push(index);
        else pending.length = 0;
        inHeading = index;
      } else if (tag[index] === 'img') pending.length = 0;
    } else if (type === 1) {
      if (index === inHeading) inHeading = -1;
    } else if (inHeading < 0 && pending.length > 0 && /\S/.test(texts[index]!)) pending.length = 0;
  }
  for (const id of pending) removed[id] = 1;
}

/**
 * A lead paragraph just before the content, one to three levels up: articles
 * often set their standfirst apart from the body (a `lead`, `perex`, `teaser`
 * paragraph in the header, under the title). Prose only: almost no links, no
 * title heading, nothing that is furniture for a reason other than its name
 * (a `teaser` class on a link-free paragraph before the text is a standfirst).
 * The last such block before the content wins, looked for in each earlier
 * sibling and, when the sibling holds a title too, inside it.
 */
function leadBefore(tape: Tape, root: number, blocked: Uint8Array): number {
  const { parent, tag } = tape;
  let anchor = root;
  for (let level = 0; level < LEAD_LEVELS; level++) {
    const p = parent[anchor]!;
    if (p < 0 || tag[p] === 'body' || tag[p] === 'html') return -1;
    let candidate = -1;
    for (let sibling = p + 1; sibling < anchor; sibling = lastDescendant(tape, sibling) + 1) {
      const end = lastDescendant(tape, sibling);
      for (let d = sibling; d <= end; d++) {
        if (isLead(tape, d, blocked)) {
          candidate = d;
          d = lastDescendant(tape, d);
        }
      }
    }
    if (candidate >= 0) return candidate;
    anchor = p;
  }
  return -1;
}

/**
 * Elements whose subtree cannot be a lead: it holds a title (a heading short
 * enough to be one) or furniture marked by its tag, role or a strong class
 * word. One pass from the last element up, since children follow parents.
 */
function leadBlockers(tape: Tape, hardDead: Uint8Array): Uint8Array {
  const n = tape.tag.length;
  const blocked = new Uint8Array(n);
  for (let id = n - 1; id >= 0; id--) {
    const title = (tape.kind[id]! & HEADING) !== 0 && (tape.tag[id] === 'h1' || tape.chars[id]! <= MAX_TITLE_CHARS);
    if (title || hardDead[id]) blocked[id] = 1;
    const p = tape.parent[id]!;
    if (p >= 0 && blocked[id]) blocked[p] = 1;
  }
  return blocked;
}

function isLead(tape: Tape, id: number, blocked: Uint8Array): boolean {
  if (blocked[id]) return false;
  const c = tape.chars[id]!;
  if (c < 60 || c > 1500 || tape.linkChars[id]! > c * 0.05) return false;
  return tape.blocks[id]! <= 10;
}

export interface ContentAnalysis {
  /** Elements that are furniture themselves. */
  junk: Uint8Array;
  /** Elements that are furniture or inside furniture. */
  dead: Uint8Array;
  /** The same, less what is furniture only by a weak or "related" class word. */
  hardDead: Uint8Array;
  /** Image captions and credits (part of `junk`). */
  caption: Uint8Array;
  /** Final candidate scores (0 for elements that are not candidates). */
  score: Float64Array;
  best: number;
  bestScore: number;
}

export interface AnalysisOptions {
  /** Read the page's noscript fallback content as content (a page rendered by a script). */
  noscript?: boolean;
  /** false: nothing is furniture by its tag, role or class (a page whose every paragraph is marked so). */
  furnitureMarks?: boolean;
}

/** The furniture marks and candidate scores behind `selectMainContent`. */
export function analyseContent(tape: Tape, opts: AnalysisOptions = {}): ContentAnalysis {
  const n = tape.tag.length;
  const { parent, kind, hints, chars, linkChars, tag } = tape;
  const total = pageChars(tape);

  // Whether a subtree holds an element marked as the main content; class words never cut such a subtree.
  const holdsMain = new Uint8Array(n);
  // Whether a subtree holds what a figure shows (a picture, code, a table, a quote): a caption-named wrapper around it keeps it.
  const holdsImage = new Uint8Array(n);
  for (let id = n - 1; id >= 0; id--) {
    const h = hints[id]!;
    const marked = tag[id] === 'main' || (h & (ROLE_MAIN | ARTICLE_BODY)) !== 0 || (tag[id] === 'article' && (h & (JUNK | RELATED | DISCUSSION)) === 0);
    if (marked) holdsMain[id] = 1;
    if (FIGURE_BODIES.has(tag[id]!)) holdsImage[id] = 1;
    const p = parent[id]!;
    if (p >= 0) {
      if (holdsMain[id]) holdsMain[p] = 1;
      if (holdsImage[id]) holdsImage[p] = 1;
    }
  }

  const junk = new Uint8Array(n);
  const dead = new Uint8Array(n);
  const hardDead = new Uint8Array(n);
  const caption = new Uint8Array(n);
  const inContainer = new Uint8Array(n);
  for (let id = 0; id < n; id++) {
    const p = parent[id]!;
    const h = hints[id]!;
    const container = (kind[id]! & CONTAINER) !== 0 || (h & ARTICLE_BODY) !== 0;
    inContainer[id] = container || (p >= 0 && inContainer[p] === 1) ? 1 : 0;
    const verdict =
      kind[id]! & FALLBACK
        ? opts.noscript
          ? KEEP
          : FURNITURE_JUNK
        : opts.furnitureMarks === false
          ? KEEP
          : isJunk(id, tape, total, p >= 0 && inContainer[p] === 1, holdsMain[id] === 1, holdsImage[id] === 1);
    if (verdict !== KEEP) junk[id] = 1;
    dead[id] = junk[id] === 1 || (p >= 0 && dead[p] === 1) ? 1 : 0;
    if (verdict === CAPTION_JUNK) caption[id] = 1;
    hardDead[id] = verdict >= FURNITURE_JUNK || (p >= 0 && hardDead[p] === 1) ? 1 : 0;
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
    // A class name vouches for an element only as far as it holds text: a 30-character `article-text` caption is no article.
    const vouched = classWeight(hints[id]!) * Math.min(1, c / CLASS_WEIGHT_FULL_CHARS);
    const final = (score[id]! + tagWeight(tag[id]!) + vouched) * (1 - density);
    score[id] = final;
    if (final > bestScore) {
      bestScore = final;
      best = id;
    }
  }
  return { junk, dead, hardDead, caption, score, best, bestScore };
}

/** Not furniture; furniture only by a weak or "related" class word; furniture by tag, role or a strong word; a caption. */
type JunkVerdict = 0 | 1 | 2 | 3;
const KEEP = 0;
const NAMED_JUNK = 1;
const FURNITURE_JUNK = 2;
const CAPTION_JUNK = 3;

function isJunk(id: number, tape: Tape, total: number, insideContainer: boolean, holdsMain: boolean, holdsImage: boolean): JunkVerdict {
  const h = tape.hints[id]!;
  const k = tape.kind[id]!;
  const c = tape.chars[id]!;
  if (h & ARTICLE_BODY || (total > 0 && c > total * 0.6)) return KEEP;
  if (k & FURNITURE) {
    const name = tape.tag[id]!;
    if ((name === 'header' || name === 'footer') && insideContainer) return name === 'footer' ? FURNITURE_JUNK : KEEP;
    return FURNITURE_JUNK;
  }
  if (h & (ROLE_FURNITURE | ARIA_HIDDEN)) return holdsMain ? KEEP : FURNITURE_JUNK;
  if (holdsMain) return KEEP;
  if (h & DISCUSSION) return FURNITURE_JUNK;
  // Wrappers misnamed after a widget they once held still read as prose: much unlinked text.
  const prose = c - tape.linkChars[id]! > 400 && tape.linkChars[id]! < c * 0.25;
  // Captions and photo credits describe a picture; the picture itself stays when the caption class is on its wrapper.
  // Text in a figure beside the picture is its caption too, whatever its tag.
  const p = tape.parent[id]!;
  const caption = tape.tag[id] === 'figcaption' || h & CAPTION || (p >= 0 && tape.tag[p] === 'figure');
  if (caption && !holdsImage) return prose ? KEEP : CAPTION_JUNK;
  // `address` is, by its definition in HTML, the contact details of the article's or the page's author.
  if ((h & AUTHOR || tape.tag[id] === 'address') && c < MAX_AUTHOR_BOX_CHARS && c < total * 0.3) return FURNITURE_JUNK;
  if (h & JUNK && !(h & (CONTENT | ROLE_MAIN))) return prose ? KEEP : FURNITURE_JUNK;
  if (h & RELATED && !(h & (CONTENT | ROLE_MAIN))) return prose ? KEEP : NAMED_JUNK;
  // Tables and code are content whatever a weak class word says about them (`table-header`, `code-meta`).
  if (h & LIKELY_JUNK && !(h & CONTENT) && tape.tag[id] !== 'table' && tape.tag[id] !== 'pre' && (c < 400 || (c > 0 && tape.linkChars[id]! / c > 0.5))) return NAMED_JUNK;
  return KEEP;
}

/** Readability's weights for a candidate's tag: containers up, lists and headings down. */
const TAG_WEIGHTS = new Map<string, number>([
  ...['div', 'article', 'main', 'section'].map((tag) => [tag, 5] as const),
  ...['pre', 'td', 'blockquote'].map((tag) => [tag, 3] as const),
  ...['address', 'ol', 'ul', 'dl', 'dd', 'dt', 'li', 'form'].map((tag) => [tag, -3] as const),
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'th'].map((tag) => [tag, -5] as const),
]);

function tagWeight(name: string): number {
  return TAG_WEIGHTS.get(name) ?? 0;
}

function classWeight(h: number): number {
  let weight = 0;
  if (h & (CONTENT | ROLE_MAIN)) weight += 25;
  if (h & ARTICLE_BODY) weight += 50;
  if (h & (JUNK | RELATED | DISCUSSION)) weight -= 25;
  return weight;
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

/**
 * Items, rows and cells are judged with their list or table: a linked
 * ingredient or source in a list of prose stays, a menu goes as a whole.
 */
const LIST_PARTS = new Set(['li', 'dt', 'dd', 'tr', 'td', 'th', 'tbody', 'thead', 'tfoot']);

/** Blocks that are mostly links: menus, tag lists, "read also" lines. */
function isLinkList(tape: Tape, id: number): boolean {
  if (!(tape.kind[id]! & BLOCK) || LIST_PARTS.has(tape.tag[id]!)) return false;
  const c = tape.chars[id]!;
  if (c === 0) return false;
  const links = tape.linkChars[id]!;
  const density = links / c;
  // Much unlinked text means prose with many links (an archive page, a reference-rich article), not a menu.
  return (density > 0.6 && c - links < 300) || (density > 0.35 && c < 40);
}
