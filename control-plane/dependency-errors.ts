import { TrawlError } from '../common/errors.js';

/** Socket errors meaning a dependency (Postgres, Redis) cannot be reached. */
const CONNECTION_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
/** Postgres SQLSTATEs for a server shutting down, starting up or out of connections. */
const POSTGRES_UNAVAILABLE: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);
/** Messages of pg and ioredis errors that carry no code. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Connection is closed',
  'Stream isn\'t writeable',
  'Reached the max retries per request limit',
];

function isUnavailable(err: Error & { code?: unknown; errors?: unknown }): boolean {
  if (err.name === 'MaxRetriesPerRequestError') return true;
  if (typeof err.code === 'string') {
    if (CONNECTION_CODES.has(err.code) || POSTGRES_UNAVAILABLE.has(err.code) || err.code.startsWith('08')) return true;
  }
  // A connection attempt to several addresses fails with all of them.
  if (Array.isArray(err.errors) && err.errors.length > 0 && err.errors.every((e) => e instanceof Error && isUnavailable(e))) return true;
  return UNAVAILABLE_MESSAGES.some((m) => err.message.includes(m));
}

/**
 * The one conversion of a lost connection to Postgres or Redis into the
 * public SERVICE_UNAVAILABLE (503): the request may be retried, nothing is
 * wrong with it. Answers undefined for any other error.
 */
export function dependencyUnavailable(err: unknown): TrawlError | undefined {
  if (!(err instanceof Error) || err instanceof TrawlError || !isUnavailable(err)) return undefined;
  return new TrawlError('SERVICE_UNAVAILABLE', 'A storage service is unavailable; try again shortly');
}
