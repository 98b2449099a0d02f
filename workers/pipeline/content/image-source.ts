/**
 * The address to show for an `<img>`: lazy-loading pages keep the real one in
 * a data attribute and put a placeholder (often an inline data: GIF) in `src`.
 */
const LAZY_ATTRIBUTES = ['data-src', 'data-lazy-src', 'data-original', 'data-lazy', 'data-url', 'data-srcset', 'srcset'];

export function imageSource(attrs: Record<string, string>): string {
  const src = attrs.src?.trim() ?? '';
  if (src && !src.startsWith('data:')) return src;
  for (const name of LAZY_ATTRIBUTES) {
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
