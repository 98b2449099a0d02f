import dns from 'node:dns';
import net from 'node:net';
import { TrawlError } from '../../common/errors.js';
import { assertUrlAllowed, isAddressAllowed, UrlNotAllowedError, type GuardOptions } from '../../common/ssrf-guard.js';

export type ResolveAll = (hostname: string) => Promise<Array<{ address: string }>>;

const systemResolve: ResolveAll = (hostname) => dns.promises.lookup(hostname, { all: true });

/**
 * Checks a webhook target when it is given (a subscription, a per-request
 * webhook_url): HTTPS only, and every address its name resolves to passes
 * the SSRF guard. Each delivery is checked again at connect time, so a name
 * that changes its answer later still never reaches a private address.
 */
export async function checkWebhookTarget(raw: string, guard: GuardOptions, resolve: ResolveAll = systemResolve): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TrawlError('VALIDATION_ERROR', 'The webhook URL is not a valid URL', { field: 'url' });
  }
  if (url.protocol !== 'https:') throw new TrawlError('VALIDATION_ERROR', 'Webhook URLs must use HTTPS', { field: 'url' });
  assertUrlAllowed(url, guard);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (net.isIP(host) !== 0) return;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await resolve(host);
  } catch {
    throw new TrawlError('VALIDATION_ERROR', `The host ${host} of the webhook URL does not resolve`, { field: 'url' });
  }
  if (addresses.length === 0 || addresses.some((a) => !isAddressAllowed(a.address, guard))) {
    throw new UrlNotAllowedError(`The host ${host} is not allowed: it is not a public internet address`, host);
  }
}
