export interface ParsedContentType {
  /** The media type alone, lower-case. */
  mime: string;
  charset?: string;
}

/** `text/html; charset="Shift_JIS"` into its media type and charset; null when absent or malformed. */
export function parseContentType(header: string | undefined): ParsedContentType | null {
  if (!header) return null;
  const [type, ...params] = header.split(';');
  const mime = type!.trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mime)) return null;
  const parsed: ParsedContentType = { mime };
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const value = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (value) parsed.charset = value;
  }
  return parsed;
}

const TEXTUAL_APPLICATION_TYPES: ReadonlySet<string> = new Set([
  'application/xhtml+xml',
  'application/json',
  'application/xml',
  'application/javascript',
]);

/**
 * Whether tier 1 turns this media type into text. PDFs, images, audio, video
 * and other binaries belong to the PDF and OCR modes.
 */
export function isTextualMime(mime: string): boolean {
  return mime.startsWith('text/') || TEXTUAL_APPLICATION_TYPES.has(mime) || mime.endsWith('+json') || mime.endsWith('+xml');
}

const BINARY_SIGNATURES: Array<[string, number[]]> = [
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['image/png', [0x89, 0x50, 0x4e, 0x47]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
  ['application/zip', [0x50, 0x4b, 0x03, 0x04]],
  ['application/gzip', [0x1f, 0x8b]],
];

/** Bytes to look at before deciding what an untyped body is. */
export const SNIFF_BYTES = 512;

/**
 * The media type of a body sent without a Content-Type, from its first
 * bytes: a few binary signatures, NUL bytes for anything else binary, markup
 * and JSON by their first character, plain text otherwise.
 */
export function sniffMime(head: Uint8Array): string {
  for (const [mime, signature] of BINARY_SIGNATURES) {
    if (signature.every((byte, i) => head[i] === byte)) return mime;
  }
  const sample = head.subarray(0, SNIFF_BYTES);
  if (sample.includes(0)) return 'application/octet-stream';
  const text = Buffer.from(sample).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart();
  if (text.startsWith('<?xml')) return 'application/xml';
  if (text.startsWith('<')) return 'text/html';
  if (text.startsWith('{') || text.startsWith('[')) return 'application/json';
  return 'text/plain';
}
