import sniffHTMLEncoding from 'html-encoding-sniffer';
import iconv from 'iconv-lite';

export interface DecodedText {
  text: string;
  /** The encoding the text was decoded with, lower-case (`utf-8`, `shift_jis`, `windows-1252`, ...). */
  charset: string;
}

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
 * the document's own declaration (`<meta>` prescan for HTML, the XML
 * declaration for XML), then UTF-8. Labels this process cannot decode are
 * skipped.
 */
export function detectCharset(bytes: Uint8Array, mime: string, headerCharset?: string): string {
  const fromBom = bomEncoding(bytes);
  if (fromBom) return fromBom;
  const fromHeader = headerCharset ? resolveLabel(headerCharset) : null;
  if (fromHeader) return fromHeader;
  const declared = isHtmlMime(mime) ? metaPrescan(bytes) : isXmlMime(mime) ? xmlDeclaration(bytes) : null;
  return declared ?? DEFAULT_CHARSET;
}

export function decodeBody(bytes: Buffer, mime: string, headerCharset?: string): DecodedText {
  const charset = detectCharset(bytes, mime, headerCharset);
  return { text: iconv.decode(bytes, charset), charset };
}
