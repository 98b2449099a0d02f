import { isTag, type Document, type Element } from 'domhandler';
import { queryOne } from '../dom-query.js';
import { textOf } from '../node-text.js';

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head']);
const HEADING = /^h([1-6])$/;

/** The page's elements in document order, built once per profile run for the heuristics that scan it. */
export interface PageIndex {
  document: Document;
  elements: Element[];
  position: Map<Element, number>;
  /** End (exclusive) of each element's subtree in `elements`. */
  subtreeEnd: Map<Element, number>;
  /** The text of `body` (or the whole page), computed on first use. */
  bodyText: () => string;
}

export function buildPageIndex(document: Document): PageIndex {
  const elements: Element[] = [];
  const position = new Map<Element, number>();
  const subtreeEnd = new Map<Element, number>();
  const walk = (el: Element): void => {
    if (SKIPPED.has(el.name)) return;
    position.set(el, elements.length);
    elements.push(el);
    for (const child of el.children) if (isTag(child)) walk(child);
    subtreeEnd.set(el, elements.length);
  };
  for (const child of document.children) if (isTag(child)) walk(child);
  let text: string | null = null;
  return {
    document,
    elements,
    position,
    subtreeEnd,
    bodyText: () => (text ??= textOf(queryOne('body', document) ?? document)),
  };
}

export function headingLevel(el: Element): number | null {
  const m = HEADING.exec(el.name);
  return m ? Number(m[1]) : null;
}

const LABEL_TAGS = new Set(['strong', 'b', 'dt']);
const LABEL_LEVEL = 7;

/** A bold line standing in for a heading: "Ingredients:" or a paragraph that is only bold text. */
function isLabel(el: Element): boolean {
  if (!LABEL_TAGS.has(el.name)) return false;
  const text = textOf(el);
  if (text === '' || text.length > 60) return false;
  if (text.endsWith(':')) return true;
  const parent = el.parent && isTag(el.parent) ? el.parent : null;
  return parent !== null && (parent.name === 'p' || parent.name === 'div') && textOf(parent) === text;
}

function headingLikeLevel(el: Element): number | null {
  return headingLevel(el) ?? (isLabel(el) ? LABEL_LEVEL : null);
}


function startsWithLabel(el: Element): boolean {
  const first = el.children.find((c) => isTag(c) || ('data' in c && typeof c.data === 'string' && c.data.trim() !== ''));
  return first !== undefined && isTag(first) && isLabel(first);
}

export interface SectionContent {
  items: string[];
  paragraphs: string[];
}

/** Lines written after a label inside the same paragraph, split at <br>: "<p><b>Ingredients:</b><br>flour<br>sugar</p>". */
function inlineLines(label: Element): string[] {
  const parent = label.parent && isTag(label.parent) ? label.parent : null;
  if (!parent || (parent.name !== 'p' && parent.name !== 'div')) return [];
  const after = parent.children.slice(parent.children.indexOf(label) + 1);
  const lines: string[] = [];
  let current = '';
  for (const node of after) {
    if (isTag(node) && node.name === 'br') {
      lines.push(current);
      current = '';
    } else current += ` ${textOf(node)}`;
  }
  lines.push(current);
  return lines.map((l) => l.replace(/\s+/g, ' ').trim()).filter((l) => l !== '');
}

/**
 * What follows a heading up to the next heading of the same or a higher
 * rank (for a bold label, up to the next heading or label): the texts of its
 * outermost list items and of its paragraphs.
 */
export function sectionAfter(index: PageIndex, heading: Element): SectionContent {
  const level = headingLikeLevel(heading) ?? LABEL_LEVEL;
  if (level === LABEL_LEVEL) {
    const lines = inlineLines(heading);
    if (lines.length > 1) return { items: lines, paragraphs: [] };
    if (lines.length === 1) return { items: [], paragraphs: lines };
  }
  const container = heading.parent && isTag(heading.parent) && level === LABEL_LEVEL ? heading.parent : heading;
  const start = index.subtreeEnd.get(container) ?? index.subtreeEnd.get(heading) ?? index.elements.length;
  const items: string[] = [];
  const paragraphs: string[] = [];
  let skipUntil = -1;
  for (let i = start; i < index.elements.length; i++) {
    if (i < skipUntil) continue;
    const el = index.elements[i]!;
    const hl = headingLevel(el);
    if (hl !== null && (hl <= level || level === LABEL_LEVEL)) break;
    if (level === LABEL_LEVEL && (isLabel(el) || startsWithLabel(el))) break;
    if (el.name === 'li' || el.name === 'p' || el.name === 'dd') {
      const text = textOf(el);
      if (text !== '') (el.name === 'li' ? items : paragraphs).push(text);
      skipUntil = index.subtreeEnd.get(el) ?? i;
    }
    if (items.length + paragraphs.length >= 200) break;
  }
  return { items, paragraphs };
}

/** Headings (and bold labels standing in for them) whose text matches, in document order. */
export function headingsMatching(index: PageIndex, pattern: RegExp): Element[] {
  return index.elements.filter((el) => headingLikeLevel(el) !== null && pattern.test(textOf(el)));
}
