import { parseDocument } from 'htmlparser2';
import type { Document } from 'domhandler';

/** Callers may parse once and hand over the tree; a string is parsed here. */
export type HtmlInput = string | Document;

export function toDocument(input: HtmlInput): Document {
  return typeof input === 'string' ? parseDocument(input) : input;
}
