import { TrawlError } from '../../common/errors.js';
import { MAX_JSON_DEPTH } from '../../common/limits.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const U = 0x75;
const ZERO = 0x30;

export interface JsonScan {
  /** The text holds a \u0000 escape, so a string in it may carry U+0000. */
  mayHoldNul: boolean;
}

/**
 * One linear pass over raw JSON bytes before JSON.parse: refuses nesting
 * deeper than MAX_JSON_DEPTH, and notes whether any string could hold U+0000
 * (JSON carries it only as the escape \u0000) so the field walk runs only
 * then. Brackets inside strings do not count. Multi-byte UTF-8 sequences
 * never contain these ASCII bytes, so scanning bytes is exact.
 */
export function scanJson(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): JsonScan {
  let depth = 0;
  let inString = false;
  let mayHoldNul = false;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === BACKSLASH) {
        if (bytes[i + 1] === U && bytes[i + 2] === ZERO && bytes[i + 3] === ZERO && bytes[i + 4] === ZERO && bytes[i + 5] === ZERO) mayHoldNul = true;
        i++;
      } else if (c === QUOTE) {
        inString = false;
      }
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) {
        throw new TrawlError('VALIDATION_ERROR', `The request body is nested deeper than ${maxDepth} levels`, { max_depth: maxDepth });
      }
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return { mayHoldNul };
}
