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
  return [];
}

const SIGNATURES: Array<[DocumentKind, number[]]> = [
  ['pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]], // %PDF-
  ['image', [0x89, 0x50, 0x4e, 0x47]], // PNG
  ['image', [0xff, 0xd8, 0xff]], // JPEG
  ['image', [0x47, 0x49, 0x46, 0x38]], // GIF8
  ['image', [0x49, 0x49, 0x2a, 0x00]], // TIFF, little-endian
  ['image', [0x4d, 0x4d, 0x00, 0x2a]], // TIFF, big-endian
  ['image', [0x42, 0x4d]], // BMP
];

function isWebp(head: Uint8Array): boolean {
  return head.length >= 12 && String.fromCharCode(...head.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...head.subarray(8, 12)) === 'WEBP';
}

/** What a fetched body is: its label first, its first bytes when it is unlabelled. */
export function documentKind(mime: string, body: Uint8Array): DocumentKind {
  if (mime === PDF_MIME) return 'pdf';
  if (OCR_IMAGE_MIMES.includes(mime)) return 'image';
  if (mime !== UNLABELLED) return 'text';
  if (isWebp(body)) return 'image';
  for (const [kind, signature] of SIGNATURES) {
    if (signature.every((byte, i) => body[i] === byte)) return kind;
  }
  return 'text';
}
