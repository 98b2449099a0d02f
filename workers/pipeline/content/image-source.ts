/**
 * The address to show for an `<img>`: lazy-loading pages keep the real one in
 * a data attribute and put a placeholder in `src` (an inline data: GIF, or a
 * placeholder file the page swaps out once the image scrolls into view).
 */
const LAZY_ATTRIBUTES = ['data-src', 'data-lazy-src', 'data-original', 'data-lazy', 'data-srcset'];
/** Used only when `src` holds nothing usable: `data-url` also names other things than the image on some pages. */
const FALLBACK_ATTRIBUTES = ['data-url', 'srcset'];

export function imageSource(attrs: Record<string, string>): string {
  const lazy = firstUsable(attrs, LAZY_ATTRIBUTES);
  if (lazy) return lazy;
  const src = attrs.src?.trim() ?? '';
  if (src && !src.startsWith('data:')) return src;
  return firstUsable(attrs, FALLBACK_ATTRIBUTES);
}

function firstUsable(attrs: Record<string, string>, names: readonly string[]): string {
  for (const name of names) {
    const value = attrs[name]?.trim();
    if (value && !value.startsWith('data:')) return name.endsWith('srcset') ? firstCandidate(value) : value;
  }
  return '';
}

function firstCandidate(srcset: string): string {
  const first = srcset.split(',')[0]!.trim();
  const space = first.search(/\s/);
  return space < 0 ? first : first.slice(0, space);
}

/** 1x1 images are counters and beacons, not content. */
export function isTrackingPixel(attrs: Record<string, string>): boolean {
  return (attrs.width === '1' || attrs.width === '0') && (attrs.height === '1' || attrs.height === '0');
}
