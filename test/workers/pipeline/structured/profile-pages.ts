import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../../fixtures/pages/profiles/', import.meta.url));

/** A fixture page from test/fixtures/pages/profiles. */
export function profilePage(name: string): string {
  return readFileSync(`${DIR}${name}`, 'utf8');
}
