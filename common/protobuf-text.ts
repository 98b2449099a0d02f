import { configureTextEncoding, getTextEncoding } from '@bufbuild/protobuf/wire';

/**
 * Encodes the strings of protobuf messages with `Buffer.from`, not the
 * library's default `TextEncoder.encode`. On Node 20 `TextEncoder.encode`
 * allocates a fresh backing store for every string: about 1.1 µs for a
 * 40-character field against 0.1 µs for `Buffer.from`, which carves short
 * strings out of a shared slab; long strings cost the same either way. A job
 * view has a dozen short strings, a task or a report about as many. The
 * bytes are the same (lone surrogates become U+FFFD in both); decoding and
 * the UTF-8 check stay the library's. Called once per process and per
 * pipeline thread, before the first message is encoded.
 */
export function useBufferTextEncoding(): void {
  const library = getTextEncoding();
  configureTextEncoding({
    encodeUtf8: (text: string) => Buffer.from(text, 'utf8'),
    decodeUtf8: library.decodeUtf8,
    checkUtf8: library.checkUtf8,
  });
}
