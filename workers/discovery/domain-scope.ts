/**
 * Which hosts a crawl or map stays on. Without subdomains: the start URL's
 * host, with or without a leading `www.`. With subdomains: any host of the
 * same registrable domain, found with the Public Suffix List (tldts, private
 * suffixes included, so `a.github.io` and `b.github.io` are different sites).
 * IP addresses and single-label hosts such as `localhost` have no registrable
 * domain and match only themselves. The scheme may switch between http and
 * https; the port must stay the same.
 */
import { getDomain } from 'tldts';

export interface DomainScopeOptions {
  includeSubdomains?: boolean;
}

function withoutWww(host: string): string {
  return host.startsWith('www.') ? host.slice(4) : host;
}

/** The registrable domain (`example.co.uk` for `a.b.example.co.uk`), or null for IPs and bare names. */
export function registrableDomain(host: string): string | null {
  return getDomain(host, { allowPrivateDomains: true });
}

export class DomainScope {
  private readonly host: string;
  private readonly port: string;
  private readonly domain: string | null;

  constructor(
    startUrl: string,
    private readonly options: DomainScopeOptions = {},
  ) {
    const url = new URL(startUrl);
    this.host = url.hostname;
    this.port = url.port;
    this.domain = registrableDomain(url.hostname);
  }

  /** Whether the URL (absolute) is on a host this scope covers. */
  contains(url: string): boolean {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.port !== this.port) return false;
    const host = parsed.hostname;
    if (withoutWww(host) === withoutWww(this.host)) return true;
    if (!this.options.includeSubdomains || this.domain === null) return false;
    return registrableDomain(host) === this.domain;
  }
}
