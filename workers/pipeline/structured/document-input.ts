import { parseDocument } from 'htmlparser2';
import { Element, Text, type ChildNode, type Document, type ParentNode } from 'domhandler';
import { RunSkippingTokenizer } from '../../html/run-skipping-tokenizer.js';

/** Callers may parse once and hand over the tree; a string is parsed here. */
export type HtmlInput = string | Document;

/**
 * Elements nested deeper than this are unwrapped: their text (and images and
 * line breaks) stays, in order, under the element at this depth. Real pages
 * stay far below it; hostile or broken ones (thousands of unclosed `<div>`s)
 * would otherwise exhaust the stack of the recursive readers.
 */
export const MAX_ELEMENT_DEPTH = 256;

const KEPT_LEAVES = new Set(['img', 'br', 'hr']);

export function toDocument(input: HtmlInput): Document {
  // The run-skipping tokenizer gives the stock one's events (run-skipping-tokenizer.ts), faster.
  const document = typeof input === 'string' ? parseDocument(input, { Tokenizer: RunSkippingTokenizer }) : input;
  limitDepth(document, MAX_ELEMENT_DEPTH);
  return document;
}

/** Flattens every subtree below `maxDepth` in place (iteratively, so depth itself cannot overflow). */
export function limitDepth(root: ParentNode, maxDepth: number): void {
  const stack: Array<{ node: ParentNode; depth: number }> = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    for (const child of node.children) {
      if (!(child instanceof Element)) continue;
      if (depth + 1 >= maxDepth) flatten(child);
      else stack.push({ node: child, depth: depth + 1 });
    }
  }
}

function flatten(element: Element): void {
  if (!element.children.some((c) => c instanceof Element)) return;
  const kept: ChildNode[] = [];
  // Depth-first, in document order, without recursion.
  const pending: ChildNode[] = [...element.children].reverse();
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node instanceof Text) kept.push(node);
    else if (node instanceof Element) {
      if (KEPT_LEAVES.has(node.name)) {
        node.children = [];
        kept.push(node);
      } else {
        for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]!);
      }
    }
  }
  kept.forEach((node, i) => {
    node.parent = element;
    node.prev = kept[i - 1] ?? null;
    node.next = kept[i + 1] ?? null;
  });
  element.children = kept;
}
