/** The value at quantile q (0 to 1) of numbers sorted ascending: the element at floor(q * n), the last for q = 1. */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
