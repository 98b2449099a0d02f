import type { Tape } from './html-tape.js';
import { CONTROL } from './tag-kinds.js';

/** The part of a page to render: one element's subtree (or the whole tape) less some subtrees. */
export interface Selection {
  /** An element id, or -1 for the whole tape. */
  root: number;
  /** Non-zero for elements whose subtree is left out. */
  removed: Uint8Array;
  /**
   * Non-zero for images whose alt text repeats a caption cut from the main
   * content: Markdown writes them without it, so the caption does not come back.
   */
  captionAlt?: Uint8Array;
}

export interface TapeVisitor {
  open(id: number): void;
  close(id: number): void;
  text(text: string): void;
}

/**
 * Replays the selected part of the tape. A removed element is jumped over in
 * one step (its close position is known), so pruning costs nothing per node
 * inside it. Form controls never carry content and are always skipped.
 */
export function walkSelection(tape: Tape, selection: Selection, visitor: TapeVisitor): void {
  const { ops, texts, closeAt, kind } = tape;
  const { removed } = selection;
  let i = selection.root >= 0 ? tape.openAt[selection.root]! : 0;
  const end = selection.root >= 0 ? closeAt[selection.root]! : ops.length - 1;
  while (i <= end) {
    const op = ops[i]!;
    const type = op & 3;
    const index = op >> 2;
    if (type === 0) {
      if (removed[index] !== 0 || kind[index]! & CONTROL) {
        i = closeAt[index]! + 1;
        continue;
      }
      visitor.open(index);
    } else if (type === 1) visitor.close(index);
    else visitor.text(texts[index]!);
    i++;
  }
}
