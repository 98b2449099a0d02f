/**
 * The entry of the response cache (`cache: true`), written by the worker
 * that stored the result and read by the control plane that answers a later
 * request from it: where the result is, and which tier made it.
 */
export interface CachePointer {
  result_key: string;
  tier: string;
}

export function encodeCachePointer(pointer: CachePointer): string {
  return JSON.stringify(pointer);
}

/** The pointer, or null for an entry that is not one. */
export function decodeCachePointer(raw: string): CachePointer | null {
  try {
    const value = JSON.parse(raw) as Partial<CachePointer>;
    return typeof value.result_key === 'string' && typeof value.tier === 'string' ? { result_key: value.result_key, tier: value.tier } : null;
  } catch {
    return null;
  }
}
