import { domainToASCII } from 'node:url';

/**
 * One allow-list entry: an exact redirect URI (it holds ":", as a scheme
 * does; compared as written, so `com.example.app:/oauth` of a native app
 * works too), a host (`n8n.example.com`: that host, any port), or a host
 * pattern (`*.example.com`: its subdomains, not the host itself).
 */
export type AllowlistEntry = { kind: 'uri'; uri: string } | { kind: 'host'; host: string } | { kind: 'subdomains'; of: string };

const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Parses an allow-list entry, or throws naming it. Hosts are kept in ASCII (punycode) form, as URLs carry them. */
export function parseAllowlistEntry(raw: string): AllowlistEntry {
  const entry = raw.trim();
  if (entry.includes(':')) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`OAuth redirect allow-list entry "${entry}" is not a URL`);
    }
    if (url.hash !== '' || url.username !== '' || url.password !== '') {
      throw new Error(`OAuth redirect allow-list entry "${entry}" must have no fragment or user information`);
    }
    return { kind: 'uri', uri: entry };
  }
  const wildcard = entry.startsWith('*.');
  const name = wildcard ? entry.slice(2) : entry;
  // domainToASCII drops what follows a "/" or "?", so those are refused first.
  const host = /[\s/?#@\\]/.test(name) ? '' : domainToASCII(name);
  if (!HOST.test(host)) throw new Error(`OAuth redirect allow-list entry "${entry}" is neither a URL, a host nor *.host`);
  return wildcard ? { kind: 'subdomains', of: host } : { kind: 'host', host };
}

function isUnder(host: string, domain: string): boolean {
  return host.endsWith(`.${domain}`);
}

function matches(entry: AllowlistEntry, uri: string, url: URL): boolean {
  if (entry.kind === 'uri') return entry.uri === uri;
  if (url.protocol !== 'https:') return false;
  return entry.kind === 'host' ? url.hostname === entry.host : isUnder(url.hostname, entry.of);
}

export interface RedirectPolicyOptions {
  /** TRAWL_ENV is production: loopback redirects are refused. */
  production: boolean;
  /** TRAWL_PUBLIC_BASE_URL: its host and that host's subdomains are the service's own. */
  publicBaseUrl: string;
  /** TRAWL_OAUTH_REDIRECT_ALLOWLIST. */
  allowlist: readonly string[];
}

export interface RedirectPolicy {
  /** Whether `uri` may receive codes for a client with these allow-list entries of its own. */
  allows(uri: string, clientEntries: readonly string[]): boolean;
}

/**
 * The redirect URIs codes may be sent to (SPEC 5 rule 6), in order:
 * an absolute URL without fragment or user information; localhost and
 * 127.0.0.1 (and [::1]) over http or https only outside production, whatever
 * any list says; hosts of the service's own domain (over https, or http when
 * the public base URL is http); then the deployment-wide allow-list and the
 * client's own entries. Host entries need https; exact URIs are taken as
 * listed (custom schemes of native apps included).
 */
export function createRedirectPolicy(opts: RedirectPolicyOptions): RedirectPolicy {
  const base = new URL(opts.publicBaseUrl);
  const ownHost = base.hostname;
  const ownSchemes = base.protocol === 'http:' ? ['https:', 'http:'] : ['https:'];
  const shared = opts.allowlist.map(parseAllowlistEntry);
  return {
    allows(uri, clientEntries) {
      let url: URL;
      try {
        url = new URL(uri);
      } catch {
        return false;
      }
      if (url.hash !== '' || uri.includes('#') || url.username !== '' || url.password !== '') return false;
      const web = url.protocol === 'https:' || url.protocol === 'http:';
      if (web && LOOPBACK.has(url.hostname)) return !opts.production;
      if (web && ownSchemes.includes(url.protocol) && (url.hostname === ownHost || isUnder(url.hostname, ownHost))) return true;
      const entries = [...shared, ...clientEntries.map(parseAllowlistEntry)];
      return entries.some((entry) => matches(entry, uri, url));
    },
  };
}
