import { sniffMime, SNIFF_BYTES } from './content-type.js';

/**
 * The binary documents a fetch may accept beside text, by the request's
 * mode: PDFs (mode pdf, and mode auto by content type) and images (mode ocr
 * and advanced.ocr). Servers that label a document
 * application/octet-stream are accepted where a document is expected and
 * recognised by their first bytes.
 */
export const PDF_MIME = 'application/pdf';
export const OCR_IMAGE_MIMES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/tiff', 'image/bmp', 'image/webp'];
const UNLABELLED = 'application/octet-stream';

export type DocumentKind = 'pdf' | 'image' | 'text';

/** Media types a fetch reads, beside textual ones, for a task's mode and advanced.ocr. */
export function acceptedDocumentMimes(mode: string, ocr: boolean): string[] {
  if (mode === 'pdf') return [PDF_MIME, UNLABELLED];
  if (mode === 'ocr') return [...OCR_IMAGE_MIMES, UNLABELLED];
  if (mode === 'auto' || mode === '') return ocr ? [PDF_MIME, ...OCR_IMAGE_MIMES] : [PDF_MIME];
  // mode js renders as render_js does, and the browser reads a PDF it is sent to as served.
  if (mode === 'js') return [PDF_MIME];
  return [];
}

/**
 * Images sniffMime (content-type.ts) does not name, looked for only in a body
 * labelled application/octet-stream: their short signatures would misread
 * plain text sniffed there.
 */
const MORE_IMAGE_SIGNATURES: number[][] = [
  [0x49, 0x49, 0x2a, 0x00], // TIFF, little-endian
  [0x4d, 0x4d, 0x00, 0x2a], // TIFF, big-endian
  [0x42, 0x4d], // BMP
];

function isWebp(head: Uint8Array): boolean {
  return head.length >= 12 && String.fromCharCode(...head.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...head.subarray(8, 12)) === 'WEBP';
}

/** What a fetched body is: its label first, its first bytes when it is unlabelled. */
export function documentKind(mime: string, body: Uint8Array): DocumentKind {
  if (mime === PDF_MIME) return 'pdf';
  if (OCR_IMAGE_MIMES.includes(mime)) return 'image';
  if (mime !== UNLABELLED) return 'text';
  const sniffed = sniffMime(body.subarray(0, SNIFF_BYTES));
  if (sniffed === PDF_MIME) return 'pdf';
  if (OCR_IMAGE_MIMES.includes(sniffed) || isWebp(body)) return 'image';
  return MORE_IMAGE_SIGNATURES.some((signature) => signature.every((byte, i) => body[i] === byte)) ? 'image' : 'text';
}
