import { selectAll, selectOne } from 'css-select';
import type { AnyNode, Element } from 'domhandler';

/** css-select typed for domhandler trees: the matches are always elements. */
export function queryAll(selector: string, root: AnyNode | AnyNode[]): Element[] {
  return selectAll<AnyNode, Element>(selector, root);
}

export function queryOne(selector: string, root: AnyNode | AnyNode[]): Element | null {
  return selectOne<AnyNode, Element>(selector, root);
}
