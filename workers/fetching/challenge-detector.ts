/**
 * Recognises bot-protection answers. A vendor signature (a page that only a
 * challenge or block from that vendor contains) means CHALLENGE_DETECTED; the
 * weaker block markers only turn a 503 into BLOCKED instead of "target down".
 * The signatures avoid the scripts these vendors also inject into ordinary
 * pages (Cloudflare's challenge-platform beacon, Imperva's resource script,
 * DataDome's tag), so a protected page that loaded normally stays a page.
 */
export interface ResponseEvidence {
  /** Response headers, names lower-case. */
  headers: Record<string, string>;
  /** The start of the decoded body. */
  body: string;
}

interface ChallengeSignature {
  vendor: string;
  matches(evidence: ResponseEvidence): boolean;
}

const CHALLENGE_SIGNATURES: ChallengeSignature[] = [
  {
    vendor: 'Cloudflare',
    matches: ({ headers, body }) =>
      headers['cf-mitigated'] === 'challenge' ||
      /window\._cf_chl_opt|<title>\s*Just a moment\.\.\.\s*<\/title>|<title>\s*Attention Required! \| Cloudflare\s*<\/title>/i.test(body),
  },
  {
    vendor: 'Imperva Incapsula',
    matches: ({ body }) => /Incapsula incident ID|<iframe[^<>]+src=["'][^"']*_Incapsula_Resource/i.test(body),
  },
  {
    vendor: 'DataDome',
    matches: ({ body }) => /(?:geo|ct)\.captcha-delivery\.com/i.test(body),
  },
  {
    vendor: 'PerimeterX',
    matches: ({ body }) => /id=["']px-captcha["']|_pxCaptcha|window\._pxAppId(?:(?!window\._pxAppId)[^<])*px-captcha/i.test(body),
  },
  {
    vendor: 'Akamai',
    matches: ({ headers, body }) =>
      /<title>\s*Access Denied\s*<\/title>/i.test(body) &&
      (/errors(?:\.|&#46;)edgesuite(?:\.|&#46;)net|Reference&#32;(?:#|&#35;)/i.test(body) || /\bak_bmsc=/.test(headers['set-cookie'] ?? '')),
  },
];

/** The bytes of a body worth scanning: challenge pages are small and put their markers early. */
export const CHALLENGE_SCAN_CHARS = 64 * 1024;

/**
 * Text every signature's body match contains (each pattern is
 * case-insensitive and includes one of these), found in one fast pass: an
 * ordinary page has none, and its signatures are not run.
 */
const SIGNATURE_HINT = /_cf_chl_opt|just a moment\.\.\.|attention required|incapsula|captcha|access denied/i;

/** The vendor whose challenge or block page this is, or null. */
export function detectChallenge(evidence: ResponseEvidence): string | null {
  const scanned = { headers: evidence.headers, body: evidence.body.slice(0, CHALLENGE_SCAN_CHARS) };
  if (scanned.headers['cf-mitigated'] === undefined && !SIGNATURE_HINT.test(scanned.body)) return null;
  return CHALLENGE_SIGNATURES.find((signature) => signature.matches(scanned))?.vendor ?? null;
}

const BLOCK_MARKERS = /captcha|are you (?:a )?(?:human|robot)|unusual traffic|automated (?:access|requests|queries)|bot detection/i;

/** Signs that an error page is a bot block rather than an outage. */
export function hasBlockMarkers(evidence: ResponseEvidence): boolean {
  return evidence.headers['cf-mitigated'] !== undefined || BLOCK_MARKERS.test(evidence.body.slice(0, CHALLENGE_SCAN_CHARS));
}
