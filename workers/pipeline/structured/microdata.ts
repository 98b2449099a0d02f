import { isTag, type Document, type Element } from 'domhandler';
import { getElementById } from 'domutils';
import { absoluteUrl } from './absolute-url.js';
import { textOf } from './node-text.js';
import type { MarkupItem, MarkupValue } from './structured-data-model.js';

const URL_SRC = new Set(['audio', 'embed', 'iframe', 'img', 'source', 'track', 'video']);
const URL_HREF = new Set(['a', 'area', 'link']);

function tokens(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter((t) => t !== '');
}

/** The value rules of the HTML microdata model, by element name. */
function propertyValue(el: Element, baseUrl: string, memory: Set<Element>): MarkupValue {
  if (el.attribs.itemscope !== undefined) return readItem(el, baseUrl, memory);
  const a = el.attribs;
  if (el.name === 'meta') return (a.content ?? '').trim();
  if (URL_SRC.has(el.name)) return absoluteUrl(a.src, baseUrl) ?? '';
  if (URL_HREF.has(el.name)) return absoluteUrl(a.href, baseUrl) ?? '';
  if (el.name === 'object') return absoluteUrl(a.data, baseUrl) ?? '';
  if (el.name === 'data' || el.name === 'meter') return (a.value ?? '').trim();
  if (el.name === 'time' && a.datetime !== undefined) return a.datetime.trim();
  // Sites put machine values in content= on ordinary elements; the visible text is the fallback.
  if (a.content !== undefined) return a.content.trim();
  return textOf(el);
}

function collectProperties(root: Element, document: Document | null): Element[] {
  const found: Element[] = [];
  const pending: Element[] = [];
  const pushChildren = (el: Element): void => {
    for (const child of el.children) if (isTag(child)) pending.push(child);
  };
  pushChildren(root);
  for (const id of tokens(root.attribs.itemref)) {
    const target = document ? getElementById(id, document.children) : null;
    if (target) pending.push(target);
  }
  const visited = new Set<Element>();
  while (pending.length > 0) {
    const el = pending.shift()!;
    if (visited.has(el) || el === root) continue;
    visited.add(el);
    if (el.attribs.itemprop !== undefined) found.push(el);
    if (el.attribs.itemscope === undefined) pushChildren(el);
  }
  return sortInTreeOrder(found);
}

function sortInTreeOrder(els: Element[]): Element[] {
  const order = new Map<Element, number[]>();
  const pathOf = (el: Element): number[] => {
    const cached = order.get(el);
    if (cached) return cached;
    const path: number[] = [];
    let node: Element | null = el;
    while (node && node.parent) {
      path.unshift(node.parent.children.indexOf(node));
      node = isTag(node.parent) ? node.parent : null;
    }
    order.set(el, path);
    return path;
  };
  return [...els].sort((a, b) => {
    const pa = pathOf(a);
    const pb = pathOf(b);
    for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
    return pa.length - pb.length;
  });
}

function documentOf(el: Element): Document | null {
  let node: Element['parent'] = el.parent;
  while (node && node.parent) node = node.parent;
  return node && node.type === 'root' ? (node as Document) : null;
}

function readItem(el: Element, baseUrl: string, memory: Set<Element>): MarkupItem {
  const item: MarkupItem = { type: tokens(el.attribs.itemtype), properties: {} };
  const id = el.attribs.itemid;
  if (id !== undefined && id.trim() !== '') item.id = absoluteUrl(id, baseUrl) ?? id.trim();
  // itemref can loop back to an ancestor; an item already being read is not read again.
  if (memory.has(el)) return item;
  const inner = new Set(memory).add(el);
  for (const propEl of collectProperties(el, documentOf(el))) {
    const value = propEl.attribs.itemscope !== undefined && inner.has(propEl) ? null : propertyValue(propEl, baseUrl, inner);
    if (value === null) continue;
    for (const name of tokens(propEl.attribs.itemprop)) (item.properties[name] ??= []).push(value);
  }
  return item;
}

/** Top-level microdata items (itemscope without itemprop), in document order. */
export function extractMicrodata(document: Document, baseUrl: string): MarkupItem[] {
  const items: MarkupItem[] = [];
  const walk = (nodes: Document['children']): void => {
    for (const node of nodes) {
      if (!isTag(node)) continue;
      if (node.attribs.itemscope !== undefined && node.attribs.itemprop === undefined) {
        items.push(readItem(node, baseUrl, new Set()));
      }
      walk(node.children);
    }
  };
  walk(document.children);
  return items;
}
