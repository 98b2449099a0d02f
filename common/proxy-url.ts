/**
 * An upstream proxy the fetch tiers connect through (SPEC 2.5 use_proxy and
 * use_own_proxy, tier 3.5): an HTTP proxy spoken to with CONNECT (over TLS
 * for https), or a SOCKS5 proxy, either with optional credentials. Parsed in
 * one place for the gateway's validation, the control plane's guard check
 * and the worker's tunnel.
 */
export interface ProxyEndpoint {
  protocol: 'http' | 'https' | 'socks5';
  host: string;
  port: number;
  username: string;
  password: string;
}

const DEFAULT_PORTS: Readonly<Record<ProxyEndpoint['protocol'], number>> = { http: 80, https: 443, socks5: 1080 };

/** The proxy a URL names, or a sentence saying why it names none. */
export function parseProxyUrl(text: string): ProxyEndpoint | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  // socks5h (names resolved by the proxy) is what every SOCKS5 connection here does anyway.
  const scheme = url.protocol.replace(/:$/, '').replace(/^socks5h$/, 'socks5');
  if (scheme !== 'http' && scheme !== 'https' && scheme !== 'socks5') return 'must be an http, https or socks5 URL';
  if (!url.hostname) return 'names no host';
  if (url.pathname.replace(/^\/$/, '') !== '' || url.search || url.hash) return 'must be scheme://[user:password@]host:port with no path';
  const protocol = scheme;
  return {
    protocol,
    host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port ? Number(url.port) : DEFAULT_PORTS[protocol],
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
}

/** The proxy as text without its credentials, for logs and messages. */
export function describeProxy(proxy: ProxyEndpoint): string {
  const host = proxy.host.includes(':') ? `[${proxy.host}]` : proxy.host;
  return `${proxy.protocol}://${host}:${proxy.port}`;
}

/** One entry of the premium proxy pool: the proxy, and the country (ISO 3166-1 alpha-2, upper case) its exits are in, if tagged. */
export interface PremiumProxy {
  proxy: ProxyEndpoint;
  country: string | null;
}

/**
 * TRAWL_PREMIUM_PROXY_URLS: comma-separated proxy URLs, each optionally
 * prefixed with its country, `us=http://user:pass@host:port`. Errors never
 * quote an entry: it holds credentials.
 */
export function parsePremiumProxies(raw: string): PremiumProxy[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry, i) => {
      const tagged = /^([A-Za-z]{2})=(.+)$/.exec(entry);
      const parsed = parseProxyUrl(tagged ? tagged[2]! : entry);
      if (typeof parsed === 'string') throw new Error(`TRAWL_PREMIUM_PROXY_URLS entry ${i + 1} ${parsed}`);
      return { proxy: parsed, country: tagged ? tagged[1]!.toUpperCase() : null };
    });
}

/** The premium proxies usable for a request: those of its country when it names one, otherwise all of them. */
export function premiumProxiesFor(pool: readonly PremiumProxy[], country: string | undefined): PremiumProxy[] {
  return country ? pool.filter((p) => p.country === country.toUpperCase()) : [...pool];
}
