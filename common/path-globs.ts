/**
 * Include and exclude glob patterns on URL paths, matched by picomatch:
 * `*` matches within one path segment, `**` as a whole segment matches any
 * number of segments (so `/blog/**` matches `/blog`, `/blog/a` and
 * `/blog/a/b`), `?`, `[...]` and `{a,b}` work as in bash. Dots are ordinary
 * characters (`/*` matches `/.well-known`). A pattern not starting with `/`
 * or `*` gets a leading `/`, since paths always start with one.
 *
 * Paths are matched percent-decoded (`/caf%C3%A9` against `/café/*`), except
 * escapes of reserved characters such as `%2F`, which would otherwise change
 * the segments.
 */
import picomatch from 'picomatch';

export type PathMatcher = (path: string) => boolean;

const PICOMATCH_OPTIONS: picomatch.PicomatchOptions = { dot: true };

/** A pattern as matched: anchored at the root. */
export function anchoredPattern(pattern: string): string {
  const trimmed = pattern.trim();
  return trimmed.startsWith('/') || trimmed.startsWith('*') ? trimmed : `/${trimmed}`;
}

export function compilePathGlob(pattern: string): PathMatcher {
  return picomatch(anchoredPattern(pattern), PICOMATCH_OPTIONS);
}

/** The path of a URL (or a path as given), decoded for matching. */
export function matchablePath(urlOrPath: string): string {
  let path = urlOrPath;
  if (!urlOrPath.startsWith('/')) {
    try {
      path = new URL(urlOrPath).pathname;
    } catch {
      return urlOrPath;
    }
  }
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

export interface PathFilterPatterns {
  include?: readonly string[] | null;
  exclude?: readonly string[] | null;
}

/**
 * A URL passes when its path matches no exclude pattern and, when include
 * patterns are given, at least one of them: exclude wins over include.
 */
export class PathFilter {
  private readonly include: PathMatcher[];
  private readonly exclude: PathMatcher[];

  constructor(patterns: PathFilterPatterns = {}) {
    this.include = (patterns.include ?? []).map(compilePathGlob);
    this.exclude = (patterns.exclude ?? []).map(compilePathGlob);
  }

  allows(urlOrPath: string): boolean {
    if (this.exclude.length === 0 && this.include.length === 0) return true;
    const path = matchablePath(urlOrPath);
    if (this.exclude.some((m) => m(path))) return false;
    return this.include.length === 0 || this.include.some((m) => m(path));
  }
}
