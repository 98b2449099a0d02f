import { isTag, type Element } from 'domhandler';

const SIMPLE_ID = /^[A-Za-z][\w-]*$/;
const SIMPLE_CLASS = /^-?[A-Za-z_][\w-]*$/;

function step(el: Element): string {
  const id = el.attribs.id?.trim();
  if (id && SIMPLE_ID.test(id)) return `${el.name}#${id}`;
  const classes = (el.attribs.class ?? '').split(/\s+/).filter((c) => SIMPLE_CLASS.test(c)).slice(0, 2);
  let s = el.name + classes.map((c) => `.${c}`).join('');
  const parent = el.parent;
  if (parent) {
    const same = parent.children.filter((c): c is Element => isTag(c) && c.name === el.name);
    if (same.length > 1) s += `:nth-of-type(${same.indexOf(el) + 1})`;
  }
  return s;
}

/**
 * A CSS selector naming the element, for evidence: anchored at the nearest
 * ancestor with an id, otherwise a path from the top, at most six steps long.
 */
export function selectorFor(el: Element): string {
  const steps: string[] = [];
  let node: Element | null = el;
  while (node && steps.length < 6) {
    const s = step(node);
    steps.unshift(s);
    if (s.includes('#') || node.name === 'body') break;
    node = node.parent && isTag(node.parent) ? node.parent : null;
  }
  return steps.join(' > ');
}
