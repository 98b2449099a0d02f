/** What an API key looks like: `sk_live_` or `sk_test_` and 32 letters and digits. */
const KEY_PATTERN = /^sk_(live|test)_[A-Za-z0-9]{32}$/;

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** What a request with a key that is unknown, malformed or revoked is told. */
export const INVALID_API_KEY_MESSAGE = 'The API key is invalid, malformed or revoked';
