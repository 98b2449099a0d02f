import { lastDescendant, pageChars, textLess, visibleChars, type HeadInfo, type Tape } from './html-tape.js';
import { normaliseLines, paragraphsHtml } from './plain-input.js';
import type { Selection } from './tape-walk.js';
import { hasTag, replaceTags } from '../../html/tags-in-text.js';

/** JSON-LD scripts longer than this are not parsed (a catalogue, not one article's data). */
const MAX_STRUCTURED_CHARS = 2_000_000;
/** How deep the parsed objects are searched for the body. */
const MAX_DEPTH = 8;

/**
 * The article's body as the page's JSON-LD states it (schema.org
 * `articleBody`), when the page states exactly one: a page that lists several
 * articles, each with a body, has no single body to stand for its content.
 * Scripts that are not valid JSON are passed over.
 */
export function structuredArticleBody(head: HeadInfo): string | undefined {
  const bodies = new Set<string>();
  for (const script of head.structuredData) {
    if (script.length > MAX_STRUCTURED_CHARS || !script.includes('"articleBody"')) continue;
    let data: unknown;
    try {
      data = JSON.parse(script);
    } catch {
      continue;
    }
    collectBodies(data, bodies, 0);
  }
  if (bodies.size !== 1) return undefined;
  const [body] = bodies;
  return body;
}

function collectBodies(value: unknown, into: Set<string>, depth: number): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collectBodies(item, into, depth + 1);
    return;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'articleBody') {
      if (typeof inner === 'string' && inner.trim() !== '') into.add(inner.trim());
    } else collectBodies(inner, into, depth + 1);
  }
}

/** Body text a page needs before it is looked at, and how much more of it there must be than of the selection. */
const MIN_BODY_CHARS = 500;
const BODY_RATIO = 2;
const MARKUP_TAG = /<(?:p|br|div|h[1-6]|ul|ol|li|blockquote|figure|table|strong|em|a)\b/i;
/**
 * Plain text as HTML text. Ampersands are left as they are: bodies are often
 * written with HTML entities (`&amp;`, `&#8217;`), which then read as the
 * characters they stand for, and a bare `&` reads as itself in HTML anyway.
 */
const asHtmlText = (s: string): string => s.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'));

/**
 * The page's JSON-LD article body, as HTML, when the selection is next to
 * nothing beside it: the article is drawn by a script from data the page
 * carries, and the visible HTML holds only its frame. A body written as
 * markup is taken as it is; plain text becomes one paragraph per blank-line
 * separated block, its single line breaks kept (and its entities decoded).
 */
export function structuredBodyInstead(tape: Tape, selection: Selection): string | undefined {
  if (tape.head.structuredData.length === 0) return undefined;
  const body = structuredArticleBody(tape.head);
  if (body === undefined) return undefined;
  const markup = hasTag(body, MARKUP_TAG);
  // A body written as markup is measured by its text, tags aside.
  const bodyChars = visibleChars(markup ? replaceTags(body, '') : body);
  if (bodyChars < MIN_BODY_CHARS || selectedChars(tape, selection) * BODY_RATIO >= bodyChars) return undefined;
  if (markup) return body;
  return paragraphsHtml(normaliseLines(body), asHtmlText);
}

/** Non-space characters of text in the selection: its root's less those of the subtrees it leaves out. */
function selectedChars(tape: Tape, selection: Selection): number {
  const { root, removed } = selection;
  const first = root >= 0 ? root : 0;
  const last = root >= 0 ? lastDescendant(tape, root) : tape.tag.length - 1;
  return textLess(tape, first, last, root >= 0 ? tape.chars[root]! : pageChars(tape), (id) => removed[id] !== 0);
}
