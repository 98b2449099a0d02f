import { isUrlNotAllowedError } from '../../common/ssrf-guard.js';
import { BodyRefusedError, BodyTooLargeError, ContentEncodingError } from './body-reader.js';

export interface ErrorClassification {
  code: 'URL_NOT_ALLOWED' | 'CONTENT_TOO_LARGE' | 'UNSUPPORTED_CONTENT_TYPE' | 'NETWORK_ERROR';
  message: string;
  escalate: boolean;
}

const TLS_CODES = /^(?:ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** The innermost cause, where undici and Node keep the system error. */
function rootCause(err: unknown): unknown {
  let current = err;
  for (let depth = 0; depth < 5; depth++) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    current = cause;
  }
  return current;
}

/**
 * Every error a fetch can throw, turned into a public failure code in one
 * place. Resets and TLS failures are escalated: anti-bot edges answer a
 * client fingerprint they dislike that way, and a stronger tier presents a
 * different one. DNS failures and refused connections are not: no tier
 * reaches a host that does not exist or does not listen.
 */
export function classifyFetchError(err: unknown, host: string): ErrorClassification {
  const refusal = isUrlNotAllowedError(err) ? err : rootCause(err);
  if (isUrlNotAllowedError(refusal)) return { code: 'URL_NOT_ALLOWED', message: refusal.message, escalate: false };
  if (err instanceof BodyTooLargeError) return { code: 'CONTENT_TOO_LARGE', message: err.message, escalate: false };
  if (err instanceof BodyRefusedError) return { code: 'UNSUPPORTED_CONTENT_TYPE', message: err.message, escalate: false };
  if (err instanceof ContentEncodingError) return { code: 'NETWORK_ERROR', message: err.message, escalate: false };

  const root = rootCause(err);
  const code = codeOf(root) || codeOf(err);
  const detail = root instanceof Error ? root.message : String(root);
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return { code: 'NETWORK_ERROR', message: `DNS lookup failed for ${host} (${code})`, escalate: false };
    case 'ECONNREFUSED':
      return { code: 'NETWORK_ERROR', message: `The connection to ${host} was refused`, escalate: false };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return { code: 'NETWORK_ERROR', message: `${host} cannot be reached (${code})`, escalate: false };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return { code: 'NETWORK_ERROR', message: `The connection to ${host} could not be opened in time`, escalate: false };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { code: 'NETWORK_ERROR', message: `The connection to ${host} was reset or closed mid-response (${detail})`, escalate: true };
  }
  if (TLS_CODES.test(code) || /\b(?:TLS|SSL)\b|certificate/i.test(detail)) {
    return { code: 'NETWORK_ERROR', message: `The TLS connection to ${host} failed: ${detail}`, escalate: true };
  }
  if (code.startsWith('HPE_') || code === 'UND_ERR_INFO') {
    return { code: 'NETWORK_ERROR', message: `${host} sent a malformed HTTP response (${detail})`, escalate: false };
  }
  return { code: 'NETWORK_ERROR', message: `The request to ${host} failed: ${detail}`, escalate: false };
}
