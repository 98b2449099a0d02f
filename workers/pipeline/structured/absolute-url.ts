/** Resolves a possibly relative reference; null for unusable ones (javascript:, data: without base...). */
export function absoluteUrl(ref: string | undefined | null, base: string): string | null {
  if (ref == null) return null;
  const trimmed = ref.trim();
  if (trimmed === '' || /^javascript:/i.test(trimmed)) return null;
  try {
    return new URL(trimmed, base || undefined).href;
  } catch {
    return /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : null;
  }
}
