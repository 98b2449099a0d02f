import { isTag, isText, isCDATA, type AnyNode, type Element } from 'domhandler';

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object', 'canvas']);
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p',
  'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'option', 'button',
]);

export function collapseWhitespace(text: string): string {
  return text.replace(/[\s\u00a0\u200b]+/g, ' ').trim();
}

function collect(node: AnyNode, out: string[]): void {
  if (isText(node)) {
    out.push(node.data);
    return;
  }
  if (isCDATA(node)) {
    for (const child of node.children) collect(child, out);
    return;
  }
  if (!isTag(node) && node.type !== 'root') return;
  const name = isTag(node) ? node.name : '';
  if (SKIPPED.has(name)) return;
  // Block boundaries become spaces so "<p>a</p><p>b</p>" reads "a b", not "ab".
  const block = BLOCKS.has(name);
  if (block) out.push(' ');
  for (const child of (node as Element).children) collect(child, out);
  if (block) out.push(' ');
}

/** Visible text of a subtree with whitespace collapsed. */
export function textOf(node: AnyNode | null | undefined): string {
  if (!node) return '';
  const out: string[] = [];
  collect(node, out);
  return collapseWhitespace(out.join(''));
}
