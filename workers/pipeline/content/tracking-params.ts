/** Query parameters that only tell analytics where a click came from. */
const TRACKING_PARAM = /^(?:utm_[a-z_]+|fbclid|gclid|dclid|msclkid|yclid|igshid|mc_cid|mc_eid|_hsenc|_hsmi|mkt_tok|oly_anon_id|oly_enc_id|vero_id|wickedid)$/i;
const MAYBE_TRACKED = /[?&](?:utm_|fbclid|gclid|dclid|msclkid|yclid|igshid|mc_cid|mc_eid|_hs|mkt_tok|oly_|vero_id|wickedid)/i;

export function withoutTrackingParams(url: string): string {
  if (!MAYBE_TRACKED.test(url)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  for (const key of [...parsed.searchParams.keys()]) if (TRACKING_PARAM.test(key)) parsed.searchParams.delete(key);
  return parsed.href;
}
