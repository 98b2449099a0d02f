import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

/** The body grew past the size cap, counted on the wire or after decoding. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The response is larger than ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** The body is compressed in a way this process cannot or could not undo. */
export class ContentEncodingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContentEncodingError';
  }
}

/** The caller's look at the first bytes refused the body. */
export class BodyRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'BodyRefusedError';
  }
}

/** The encodings this process decodes, also the value of the request's accept-encoding. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

type Decompressor = zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;

/**
 * A decoder that creates its decompressor on the first byte: an empty body
 * with a Content-Encoding (a 204, a HEAD-like answer) decodes to nothing
 * instead of failing as a truncated stream, and `deflate` can be told apart
 * from raw deflate by its first bytes.
 */
function lazyDecoder(choose: (first: Buffer) => Decompressor): Transform {
  let inner: Decompressor | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (!inner) {
        inner = choose(chunk);
        inner.on('data', (data: Buffer) => this.push(data));
        inner.on('error', (err) => this.destroy(err));
      }
      inner.write(chunk, () => callback());
    },
    flush(callback) {
      if (!inner) return callback();
      inner.once('end', () => callback());
      inner.end();
    },
    destroy(err, callback) {
      inner?.destroy();
      callback(err);
    },
  });
}

/** `deflate` is meant to be zlib-wrapped, but some servers send raw deflate; the header bytes say which. */
function isZlibWrapped(first: Buffer): boolean {
  return first.length >= 2 && (first[0]! & 0x0f) === 8 && ((first[0]! << 8) | first[1]!) % 31 === 0;
}

function decoderFor(encoding: string): Transform {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return lazyDecoder(() => zlib.createGunzip());
    case 'deflate':
      return lazyDecoder((first) => (isZlibWrapped(first) ? zlib.createInflate() : zlib.createInflateRaw()));
    case 'br':
      return lazyDecoder(() => zlib.createBrotliDecompress());
    default:
      throw new ContentEncodingError(`The response uses the content encoding "${encoding}", which cannot be decoded`);
  }
}

/** Content-Encoding lists codings in the order applied; they are undone in reverse. */
export function parseContentEncoding(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
}

/** Counts the bytes on the wire, before any decompression. */
function wireByteLimit(maxBytes: number): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      if (total > maxBytes) callback(new BodyTooLargeError(maxBytes));
      else callback(null, chunk);
    },
  });
}

export interface ReadBodyOptions {
  /** Content codings in the order to undo them (see parseContentEncoding). */
  encodings: string[];
  maxBytes: number;
  signal: AbortSignal;
  /**
   * Looks once at the first decoded bytes (up to `inspectBytes`, or all of a
   * shorter body) and returns a reason to refuse the body, or null to read on.
   */
  inspect?: (head: Buffer) => string | null;
  inspectBytes?: number;
}

/**
 * Reads a response body through its decompressors into memory, stopping
 * the moment either the wire bytes or the decoded bytes pass maxBytes, so a
 * huge or endless body and a decompression bomb cost at most maxBytes.
 * Errors destroy the source, which closes the connection.
 */
export async function readBody(source: Readable, opts: ReadBodyOptions): Promise<Buffer> {
  // Undici bodies emit an abort error when destroyed; nobody else listens once reading stops.
  source.on('error', () => undefined);
  let decoders: Transform[];
  try {
    decoders = opts.encodings.map(decoderFor);
  } catch (err) {
    source.destroy();
    throw err;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let inspected = !opts.inspect;
  const inspectBytes = opts.inspectBytes ?? 512;
  const inspect = (): string | null => {
    inspected = true;
    return opts.inspect!(Buffer.concat(chunks, size));
  };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > opts.maxBytes) return callback(new BodyTooLargeError(opts.maxBytes));
      chunks.push(chunk);
      const refusal = !inspected && size >= inspectBytes ? inspect() : null;
      callback(refusal ? new BodyRefusedError(refusal) : null);
    },
    final(callback) {
      const refusal = !inspected ? inspect() : null;
      callback(refusal ? new BodyRefusedError(refusal) : null);
    },
  });
  const counter = wireByteLimit(opts.maxBytes);
  // A failing stream makes the pipeline destroy all the others with the same
  // error, so only the first error says whether decoding is what failed.
  let firstError: { err: unknown; fromDecoder: boolean } | undefined;
  const record = (fromDecoder: boolean) => (err: unknown) => void (firstError ??= { err, fromDecoder });
  for (const stream of [source, counter, sink]) stream.once('error', record(false));
  for (const decoder of decoders) decoder.once('error', record(true));
  try {
    await pipeline([source, counter, ...decoders, sink], { signal: opts.signal });
  } catch (err) {
    source.destroy();
    if (firstError?.fromDecoder && !opts.signal.aborted) {
      throw new ContentEncodingError(`The compressed response body cannot be decoded: ${(firstError.err as Error).message}`);
    }
    throw err;
  }
  return ownBuffer(chunks, size);
}

/** The chunks joined in a buffer that owns its memory (never a slice of Node's shared pool), so it can be transferred. */
function ownBuffer(chunks: Buffer[], size: number): Buffer {
  const out = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(out, at);
  return out;
}
