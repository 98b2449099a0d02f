/**
 * A UUID in its canonical textual form (any version): what Postgres `uuid`
 * columns accept without an error. Its source is also a Postgres regular
 * expression (with `~*`).
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
