/**
 * The transport google-auth-library's service-account client uses for its
 * token request (the OAuth2 JWT-bearer grant, RFC 7523). That library sends
 * the grant to Google's fixed URL whatever the key file's token_uri says;
 * this transport sends it to the operator's token URL instead (Google's by
 * default), and never to a token_uri a caller supplied.
 */
export function tokenUrlTransport(tokenUrl: string, timeoutMs: number) {
  return {
    async request(opts: { method?: string; url?: string; data?: Record<string, string>; headers?: Record<string, string> }) {
      const res = await fetch(tokenUrl, {
        method: opts.method ?? 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(opts.data ?? {}).toString(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (!res.ok) {
        const reason = typeof data['error_description'] === 'string' ? data['error_description'] : typeof data['error'] === 'string' ? data['error'] : `HTTP ${res.status}`;
        throw new Error(`The token endpoint refused the service account: ${reason}`);
      }
      return { data, status: res.status, headers: {}, config: opts };
    },
  };
}
