import { isUtf8 } from 'node:buffer';
import sniffHTMLEncoding from 'html-encoding-sniffer';
import iconv from 'iconv-lite';

const DEFAULT_CHARSET = 'utf-8';

/** A BOM is evidence about the bytes themselves, so it wins over any label, as in browsers. */
function bomEncoding(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return null;
}

/** An encoding this process can decode, or null. */
function decodable(name: string): string | null {
  const lower = name.toLowerCase();
  return iconv.encodingExists(lower) ? lower : null;
}

/**
 * A label resolved the way browsers resolve it (WHATWG: `iso-8859-1` and
 * `us-ascii` mean windows-1252, `gb2312` means gbk, ...), falling back to
 * iconv-lite's own aliases for labels outside the WHATWG table.
 */
function resolveLabel(label: string): string | null {
  const whatwgName = sniffHTMLEncoding(new Uint8Array(0), { transportLayerEncodingLabel: label, defaultEncoding: '' });
  return (whatwgName && decodable(whatwgName)) || decodable(label.trim());
}

function metaPrescan(bytes: Uint8Array): string | null {
  const found = sniffHTMLEncoding(bytes, { defaultEncoding: '' });
  return found ? decodable(found) : null;
}

/** How far into a page its head is searched for a charset declaration past the prescan's first 1024 bytes, and how many meta tags are read. */
const HEAD_SCAN_BYTES = 64 * 1024;
const MAX_HEAD_METAS = 64;

/**
 * A `<meta>` charset declaration further into the head than the prescan's
 * 1024 bytes, as Chromium finds one: its parser keeps looking while it is in
 * the head (a page whose head opens with long scripts or injected markup, as
 * an archived copy's does, declares its charset after them). Script and
 * comment contents are passed over, in one pass from start to end (a script
 * left open ends the search); each meta tag is read by the prescan's own
 * rules.
 */
function headScan(bytes: Uint8Array): string | null {
  if (bytes.length <= 1024) return null;
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEAD_SCAN_BYTES)).toString('latin1').toLowerCase();
  let metas = 0;
  for (let at = head.indexOf('<'); at >= 0 && metas < MAX_HEAD_METAS; at = head.indexOf('<', at + 1)) {
    if (head.startsWith('<script', at)) {
      const close = head.indexOf('</script', at + 7);
      if (close < 0) return null;
      at = close;
    } else if (head.startsWith('<!--', at)) {
      const close = head.indexOf('-->', at + 4);
      if (close < 0) return null;
      at = close;
    } else if (head.startsWith('<body', at) && /[\s>]/.test(head.charAt(at + 5))) {
      return null;
    } else if (head.startsWith('<meta', at) && /[\s/]/.test(head.charAt(at + 5))) {
      metas++;
      const found = metaPrescan(bytes.subarray(at, at + 1024));
      if (found) return found;
    }
  }
  return null;
}

const XML_DECLARATION = /^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/;

function xmlDeclaration(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  const match = XML_DECLARATION.exec(head);
  return match ? resolveLabel(match[1]!) : null;
}

function isHtmlMime(mime: string): boolean {
  return mime === 'text/html' || mime === 'application/xhtml+xml';
}

function isXmlMime(mime: string): boolean {
  return mime === 'application/xml' || mime === 'text/xml' || mime.endsWith('+xml');
}

/**
 * The encoding of a response body: BOM, then the Content-Type charset, then
 * the document's own declaration (`<meta>` prescan for HTML, then the rest
 * of its head; the XML declaration for XML), then UTF-8. Labels this process cannot decode are
 * skipped. The name is lower-case (`utf-8`, `shift_jis`, `windows-1252`, ...).
 */
export function detectCharset(bytes: Uint8Array, mime: string, headerCharset?: string): string {
  const fromBom = bomEncoding(bytes);
  if (fromBom) return fromBom;
  const fromHeader = headerCharset ? resolveLabel(headerCharset) : null;
  if (fromHeader) return fromHeader;
  const declared = isHtmlMime(mime) ? (metaPrescan(bytes) ?? headScan(bytes)) : isXmlMime(mime) ? xmlDeclaration(bytes) : null;
  return declared ?? DEFAULT_CHARSET;
}

/**
 * Bytes the size of one piece of decoded text (`decodeTextPieces`): at most
 * 48K characters, which stays under V8's large-object size (128 KB) even
 * when every character takes two bytes.
 */
const PIECE_BYTES = 48 * 1024;

/**
 * decodeText's text as consecutive pieces of at most PIECE_BYTES bytes each
 * (see workers/html/document-text.ts for why); joined, they are exactly
 * decodeText's answer. UTF-8 is cut before a character's first byte; other
 * charsets go through iconv-lite's streaming decoder, which carries a
 * character cut between two pieces over to the next.
 */
export function decodeTextPieces(bytes: Uint8Array, charset: string): string[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length <= PIECE_BYTES) return [decodeText(buffer, charset)];
  const pieces: string[] = [];
  if ((charset === 'utf-8' || charset === 'utf8') && isUtf8(buffer)) {
    for (let at = 0; at < buffer.length; ) {
      let end = Math.min(buffer.length, at + PIECE_BYTES);
      while (end < buffer.length && (buffer[end]! & 0xc0) === 0x80) end++;
      pieces.push(buffer.toString('utf8', at, end));
      at = end;
    }
    if (pieces[0]!.charCodeAt(0) === 0xfeff) pieces[0] = pieces[0]!.slice(1);
  } else {
    // The decoder drops a BOM as iconv.decode does.
    const decoder = iconv.getDecoder(charset);
    for (let at = 0; at < buffer.length; at += PIECE_BYTES) {
      const piece = decoder.write(buffer.subarray(at, at + PIECE_BYTES));
      if (piece) pieces.push(piece);
    }
    const rest = decoder.end();
    if (rest) pieces.push(rest);
  }
  return pieces.length > 0 ? pieces : [''];
}

/** Bytes in a charset from detectCharset as text; a BOM is dropped. With decodeTextPieces, the one place a body is decoded. */
export function decodeText(bytes: Uint8Array, charset: string): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Valid UTF-8 (most pages) decodes to the same text natively, two to three times faster than iconv-lite's
  // StringDecoder; invalid bytes still go through iconv-lite so their replacement characters stay as they were.
  if ((charset === 'utf-8' || charset === 'utf8') && isUtf8(buffer)) {
    const text = buffer.toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
  return iconv.decode(buffer, charset);
}

/**
 * The start of a body as text for finding ASCII markers (challenge pages),
 * without decoding it: every charset this process decodes except UTF-16
 * keeps ASCII bytes as they are, so a one-byte view finds the same markers.
 */
export function asciiView(bytes: Buffer, charset: string, maxChars: number): string {
  if (charset.startsWith('utf-16')) return iconv.decode(bytes.subarray(0, maxChars * 2), charset);
  return bytes.toString('latin1', 0, Math.min(bytes.length, maxChars));
}
