/**
 * robots.txt parsing and matching (RFC 9309), with the behaviour of Google's
 * reference parser where the RFC leaves room: the same grouping, the same
 * longest-match rule, and its tolerance of common mistakes (a missing colon,
 * misspelt `disallow`, a byte-order mark, `index.html` standing for its folder).
 *
 * Everything works on bytes: a body or URL given as a string is taken as UTF-8,
 * and each byte is one character of a "binary string", so a path with invalid
 * UTF-8 compares exactly as it was sent. Patterns are normalised to the form a
 * serialised URL has (non-ASCII bytes percent-encoded, escapes in upper case);
 * URLs are compared as given, so pass them as serialised by `URL.href`.
 *
 * Limits: only the first {@link ROBOTS_MAX_BYTES} bytes are read (the RFC's
 * minimum), a line is cut at {@link ROBOTS_MAX_LINE_LENGTH} bytes, and matching
 * one rule costs at most pattern length × path length steps.
 */

/** Bytes of a robots.txt body that are parsed; the rest is ignored (RFC 9309 section 2.5). */
export const ROBOTS_MAX_BYTES = 500 * 1024;
/** Longest line kept, in bytes, as in Google's parser (eight maximum-length URLs). */
export const ROBOTS_MAX_LINE_LENGTH = 2083 * 8;

export interface RobotsRule {
  allow: boolean;
  /** The pattern normalised for comparison: percent-encoded, escapes upper-cased. */
  pattern: string;
}

interface RobotsGroup {
  /** Product tokens named by the group's user-agent lines, lower-cased. */
  agents: string[];
  /** Whether a `User-agent: *` line opened the group. */
  global: boolean;
  rules: RobotsRule[];
  /** The first `Crawl-delay` of the group, in seconds. */
  crawlDelay: number | null;
}

export interface RobotsParseOptions {
  /** Where the file was fetched from; relative `Sitemap:` URLs are resolved against it. */
  robotsUrl?: string;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const DISALLOW_TYPOS = ['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'];
const USER_AGENT_KEYS = ['user-agent', 'useragent', 'user agent'];
const SITEMAP_KEYS = ['sitemap', 'site-map'];
const CRAWL_DELAY_KEYS = ['crawl-delay', 'crawldelay'];

type Directive = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay' | 'unknown';

function toBinary(input: string | Uint8Array): string {
  return Buffer.from(typeof input === 'string' ? Buffer.from(input, 'utf8') : input).toString('latin1');
}

/** C `isspace`: the whitespace Google's parser strips. */
function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

function trim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

function directiveOf(key: string): Directive {
  const lower = key.toLowerCase();
  const startsWithAny = (prefixes: readonly string[]) => prefixes.some((p) => lower.startsWith(p));
  if (startsWithAny(USER_AGENT_KEYS)) return 'user-agent';
  if (lower.startsWith('allow')) return 'allow';
  if (startsWithAny(DISALLOW_TYPOS)) return 'disallow';
  if (startsWithAny(SITEMAP_KEYS)) return 'sitemap';
  if (startsWithAny(CRAWL_DELAY_KEYS)) return 'crawl-delay';
  return 'unknown';
}

/**
 * Splits a line into key and value at the first colon or, when there is no
 * colon, at whitespace between exactly two words (`Disallow /x`).
 */
function splitLine(rawLine: string): { key: string; value: string } | null {
  const hash = rawLine.indexOf('#');
  const line = trim(hash === -1 ? rawLine : rawLine.slice(0, hash));
  if (!line) return null;
  let sep = line.indexOf(':');
  let valueStart = sep + 1;
  if (sep === -1) {
    const white = line.search(/[ \t]/);
    if (white === -1) return null;
    const rest = line.slice(white).replace(/^[ \t]+/, '');
    if (/[ \t]/.test(rest)) return null;
    sep = white;
    valueStart = line.length - rest.length;
  }
  const key = trim(line.slice(0, sep));
  if (!key) return null;
  return { key, value: trim(line.slice(valueStart)) };
}

/** Percent-encodes bytes outside ASCII and upper-cases the hex digits of existing escapes. */
export function normaliseRobotsPattern(binary: string): string {
  let out = '';
  for (let i = 0; i < binary.length; i++) {
    const code = binary.charCodeAt(i);
    if (code === 0x25 && i + 2 < binary.length && isHex(binary.charCodeAt(i + 1)) && isHex(binary.charCodeAt(i + 2))) {
      out += '%' + binary.slice(i + 1, i + 3).toUpperCase();
      i += 2;
    } else if (code >= 0x80) {
      out += '%' + code.toString(16).toUpperCase().padStart(2, '0');
    } else {
      out += binary[i];
    }
  }
  return out;
}

function isHex(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/**
 * The product token of a user-agent line: the leading run of letters, `_` and
 * `-` (`Googlebot/2.1 (+http://…)` names `Googlebot`). Use it to turn a full
 * User-Agent header from configuration into the token robots.txt groups name.
 */
export function robotsProductToken(userAgent: string): string {
  return /^[A-Za-z_-]*/.exec(userAgent.trim())![0];
}

/**
 * The path, parameters and query of a URL, without the fragment: what rules
 * are matched against. Works on any string, as Google's parser does: `//` at
 * the start is a network-path reference, `://` before the first `/?;` ends a
 * scheme, and a result not starting with `/` gets one.
 */
export function robotsPathOf(url: string): string {
  let searchStart = 0;
  if (url.startsWith('//')) searchStart = 2;
  const earlyPath = firstOf(url, '/?;', searchStart);
  let protocolEnd = url.indexOf('://', searchStart);
  if (protocolEnd === -1 || (earlyPath !== -1 && earlyPath < protocolEnd)) protocolEnd = searchStart;
  else protocolEnd += 3;
  const pathStart = firstOf(url, '/?;', protocolEnd);
  if (pathStart === -1) return '/';
  const hash = url.indexOf('#', searchStart);
  if (hash !== -1 && hash < pathStart) return '/';
  const path = url.slice(pathStart, hash === -1 ? url.length : hash);
  return path.startsWith('/') ? path : '/' + path;
}

function firstOf(text: string, chars: string, from: number): number {
  for (let i = from; i < text.length; i++) if (chars.includes(text[i]!)) return i;
  return -1;
}

/**
 * Whether a pattern matches the start of a path: `*` matches any run of
 * characters and `$` as the last character anchors the end. Tracks every
 * path position the pattern prefix can reach, so no input backtracks.
 */
export function robotsPatternMatches(path: string, pattern: string): boolean {
  if (!pattern.includes('*') && !pattern.endsWith('$')) return path.startsWith(pattern);
  const pathLength = path.length;
  const positions = new Int32Array(pathLength + 1);
  let count = 1;
  positions[0] = 0;
  for (let p = 0; p < pattern.length; p++) {
    const ch = pattern[p];
    if (ch === '$' && p === pattern.length - 1) return positions[count - 1] === pathLength;
    if (ch === '*') {
      count = pathLength - positions[0]! + 1;
      for (let i = 1; i < count; i++) positions[i] = positions[i - 1]! + 1;
    } else {
      let next = 0;
      for (let i = 0; i < count; i++) {
        const at = positions[i]!;
        if (at < pathLength && path[at] === ch) positions[next++] = at + 1;
      }
      count = next;
      if (count === 0) return false;
    }
  }
  return true;
}

/**
 * The allow pattern Google's parser also honours for a rule ending in
 * `/index.htm…`: the folder itself, anchored (`/a/index.html` allows `/a/`).
 */
function indexPageAlias(pattern: string): string | null {
  const slash = pattern.lastIndexOf('/');
  if (slash === -1 || !pattern.startsWith('/index.htm', slash)) return null;
  return pattern.slice(0, slash + 1) + '$';
}

function parseCrawlDelay(value: string): number | null {
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(value)) return null;
  const seconds = Number(value);
  return Number.isFinite(seconds) ? seconds : null;
}

/** The rules that apply to one user agent, ready to answer many URLs. */
export class RobotsPolicy {
  /**
   * @param rules  the allow and disallow rules of every matching group, in file order
   * @param crawlDelay  the first `Crawl-delay` of the matching groups, in seconds
   * @param sitemaps  every `Sitemap:` URL of the file
   */
  constructor(
    readonly rules: readonly RobotsRule[],
    readonly crawlDelay: number | null,
    readonly sitemaps: readonly string[],
  ) {}

  /** Whether the URL may be fetched: the longest matching rule decides, allow wins a tie, no match allows. */
  isAllowed(url: string): boolean {
    return !this.isDisallowedPath(robotsPathOf(toBinary(url)).replace(/%[0-9a-f]{2}/gi, (e) => e.toUpperCase()));
  }

  /** Non-empty disallow patterns as they are compared (for reports such as map's `robots_txt`). */
  get disallowedPaths(): string[] {
    return [...new Set(this.rules.filter((r) => !r.allow && r.pattern).map((r) => r.pattern))];
  }

  private isDisallowedPath(path: string): boolean {
    let allow = -1;
    let disallow = -1;
    for (const rule of this.rules) {
      const length = rule.pattern.length;
      if (length <= (rule.allow ? allow : disallow)) continue;
      if (robotsPatternMatches(path, rule.pattern)) {
        if (rule.allow) allow = length;
        else disallow = length;
      }
    }
    // An empty pattern matches with length 0, which neither allows nor forbids anything.
    return disallow > 0 && disallow > allow;
  }
}

/** A parsed robots.txt file: its groups and sitemaps, independent of any user agent. */
export class RobotsTxt {
  private constructor(
    private readonly groups: readonly RobotsGroup[],
    readonly sitemaps: readonly string[],
  ) {}

  /** A file that allows everything, for a robots.txt that is missing (4xx). */
  static allowAll(): RobotsTxt {
    return new RobotsTxt([], []);
  }

  /**
   * A file that forbids everything, for a robots.txt that could not be read
   * (5xx or unreachable), as RFC 9309 section 2.3.1.3 asks.
   */
  static disallowAll(): RobotsTxt {
    return new RobotsTxt([{ agents: [], global: true, rules: [{ allow: false, pattern: '/' }], crawlDelay: null }], []);
  }

  static parse(body: string | Uint8Array, options: RobotsParseOptions = {}): RobotsTxt {
    let binary = toBinary(body);
    if (binary.length > ROBOTS_MAX_BYTES) {
      binary = binary.slice(0, ROBOTS_MAX_BYTES);
      const lastBreak = Math.max(binary.lastIndexOf('\n'), binary.lastIndexOf('\r'));
      binary = binary.slice(0, lastBreak + 1);
    }
    let bom = 0;
    while (bom < UTF8_BOM.length && binary.charCodeAt(bom) === UTF8_BOM[bom]) bom++;

    const groups: RobotsGroup[] = [];
    const sitemaps = new Set<string>();
    let current: RobotsGroup | null = null;
    let currentHasRules = false;

    for (const rawLine of binary.slice(bom).split(/\r\n|\r|\n/)) {
      const parsed = splitLine(rawLine.slice(0, ROBOTS_MAX_LINE_LENGTH - 1));
      if (!parsed) continue;
      const { key, value } = parsed;
      const directive = directiveOf(key);
      switch (directive) {
        case 'user-agent': {
          if (!current || currentHasRules) {
            current = { agents: [], global: false, rules: [], crawlDelay: null };
            currentHasRules = false;
            groups.push(current);
          }
          // `*` followed by whitespace and anything else still names every agent.
          if (/^\*(\s|$)/.test(value)) current.global = true;
          else current.agents.push(robotsProductToken(value).toLowerCase());
          break;
        }
        case 'allow':
        case 'disallow': {
          if (!current) break;
          currentHasRules = true;
          const allow = directive === 'allow';
          const pattern = normaliseRobotsPattern(value);
          current.rules.push({ allow, pattern });
          const alias = allow ? indexPageAlias(pattern) : null;
          if (alias) current.rules.push({ allow: true, pattern: alias });
          break;
        }
        case 'crawl-delay':
          // Like a rule, a crawl delay belongs to the user agents above it, so a user-agent line after it opens a new group.
          if (!current) break;
          currentHasRules = true;
          if (current.crawlDelay === null) current.crawlDelay = parseCrawlDelay(value);
          break;
        case 'sitemap': {
          const url = absoluteHttpUrl(Buffer.from(value, 'latin1').toString('utf8'), options.robotsUrl);
          if (url) sitemaps.add(url);
          break;
        }
        case 'unknown':
          break;
      }
    }
    return new RobotsTxt(groups, [...sitemaps]);
  }

  /**
   * The policy for one user agent, matched case-insensitively against each
   * group's product token. Groups naming the agent are merged; only when none
   * does are the `*` groups used; with neither, everything is allowed.
   * The agent is compared whole: pass a product token such as `TrawlBot`
   * (see {@link robotsProductToken}), not a full User-Agent header.
   */
  forAgent(userAgent: string): RobotsPolicy {
    const agent = userAgent.toLowerCase();
    let selected = this.groups.filter((g) => g.agents.includes(agent));
    if (selected.length === 0) selected = this.groups.filter((g) => g.global);
    const crawlDelay = selected.find((g) => g.crawlDelay !== null)?.crawlDelay ?? null;
    return new RobotsPolicy(
      selected.flatMap((g) => g.rules),
      crawlDelay,
      this.sitemaps,
    );
  }

  /** One-off check; for many URLs keep the {@link forAgent} policy instead. */
  isAllowed(url: string, userAgent: string): boolean {
    return this.forAgent(userAgent).isAllowed(url);
  }
}

function absoluteHttpUrl(value: string, base: string | undefined): string | null {
  try {
    const url = new URL(value, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
