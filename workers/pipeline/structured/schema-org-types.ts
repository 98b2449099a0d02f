/** `https://schema.org/Product`, `schema:Product` and `Product` all name the same type. */
export function shortTypeName(type: string): string {
  const trimmed = type.trim();
  const hash = trimmed.lastIndexOf('#');
  const slash = trimmed.lastIndexOf('/');
  const cut = Math.max(hash, slash);
  let name = cut >= 0 ? trimmed.slice(cut + 1) : trimmed;
  const colon = name.lastIndexOf(':');
  if (colon >= 0) name = name.slice(colon + 1);
  return name;
}

export function typeList(value: unknown): string[] {
  const raw = Array.isArray(value) ? value : value == null ? [] : [value];
  return raw.filter((t): t is string => typeof t === 'string' && t.trim() !== '').map(shortTypeName);
}
