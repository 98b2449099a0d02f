import { TrawlError } from './errors.js';
import { MAX_EXTRACT_CONTENT_BYTES, sizeLabel } from './limits.js';

/**
 * Refuses /api/v1/extract content that cannot be processed: blank, or over
 * the content limit in UTF-8 bytes. The gateway checks before sending the
 * content inward; the control plane checks again for its other callers.
 */
export function refuseUnusableContent(content: string): void {
  if (content.trim() === '') throw new TrawlError('CONTENT_BLANK', 'content must not be blank');
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > MAX_EXTRACT_CONTENT_BYTES) {
    throw new TrawlError('CONTENT_OVER_LIMIT', `content is over the ${sizeLabel(MAX_EXTRACT_CONTENT_BYTES)} limit`, {
      size_bytes: bytes,
      limit_bytes: MAX_EXTRACT_CONTENT_BYTES,
    });
  }
}
