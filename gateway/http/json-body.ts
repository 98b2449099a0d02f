import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { TrawlError } from '../../common/errors.js';
import { BODY_IDLE_TIMEOUT_MS, sizeLabel } from '../../common/limits.js';
import { scanJson, type JsonScan } from './json-scan.js';

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface JsonBody {
  value: unknown;
  scan: JsonScan;
  /** The body as received (after decompression). */
  bytes: Buffer;
}

/** True when the request announces a body (a length above zero, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  if (!contentType) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

export function isJsonType(contentType: string | undefined): boolean {
  const type = mediaTypeOf(contentType);
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function tooLarge(limitBytes: number): TrawlError {
  return new TrawlError('PAYLOAD_TOO_LARGE', `The request body is over the ${sizeLabel(limitBytes)} limit`, { limit_bytes: limitBytes });
}

/**
 * Reads a request body up to `limitBytes` (counted after decompression, so a
 * compressed bomb stops at the limit), refusing it when it stalls for
 * BODY_IDLE_TIMEOUT_MS. On refusal the request stream is left unread, paused;
 * the error answer then closes the connection.
 */
function collect(req: IncomingMessage, decoder: Transform | null, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const output = decoder ?? req;
    const finish = (err?: TrawlError) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onInput);
      req.off('close', onClose);
      output.off('data', onData);
      if (decoder) {
        req.unpipe(decoder);
        decoder.destroy();
      }
      if (err) {
        req.pause();
        reject(err);
      } else {
        resolve(Buffer.concat(chunks, size));
      }
    };
    const timer = setTimeout(
      () => finish(new TrawlError('REQUEST_TIMEOUT', `The request body stalled for ${BODY_IDLE_TIMEOUT_MS / 1000} s`)),
      BODY_IDLE_TIMEOUT_MS,
    );
    const onInput = () => timer.refresh();
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) return finish(tooLarge(limitBytes));
      chunks.push(chunk);
    };
    const onClose = () => {
      if (!req.complete) finish(new TrawlError('VALIDATION_ERROR', 'The request body ended early'));
    };
    req.on('data', onInput);
    req.on('close', onClose);
    output.on('data', onData);
    output.once('end', () => finish());
    output.once('error', () => finish(new TrawlError('VALIDATION_ERROR', 'The request body could not be decompressed')));
    if (decoder) {
      req.once('error', () => finish(new TrawlError('VALIDATION_ERROR', 'The request body ended early')));
      req.pipe(decoder);
    }
  });
}

/**
 * The JSON body of a request: media type and encoding checked before a byte
 * is read, size and nesting depth checked before parsing, UTF-8 strictly
 * decoded. Undefined when the request has no body.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<JsonBody | undefined> {
  if (!hasBody(req)) return undefined;
  if (!isJsonType(req.headers['content-type'])) throw new TrawlError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  const bytes = await readBodyBytes(req, limitBytes);
  const scan = scanJson(bytes);
  const text = decodeUtf8(bytes);
  try {
    return { value: JSON.parse(text), scan, bytes };
  } catch (err) {
    throw new TrawlError('VALIDATION_ERROR', 'The request body is not valid JSON', { reason: (err as Error).message });
  }
}

/** Strict UTF-8, or a 400. */
export function decodeUtf8(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new TrawlError('VALIDATION_ERROR', 'The request body is not valid UTF-8');
  }
}

/**
 * The bytes of a request body of any media type: the encoding checked
 * before a byte is read, the limit counted after decompression.
 */
export async function readBodyBytes(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let decoder: Transform | null = null;
  if (encoding !== 'identity') {
    const make = DECODERS[encoding];
    if (!make) throw new TrawlError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${encoding} is not supported; send gzip, deflate, br or none`);
    decoder = make();
  } else if (Number(req.headers['content-length'] ?? 0) > limitBytes) {
    throw tooLarge(limitBytes);
  }
  return collect(req, decoder, limitBytes);
}
