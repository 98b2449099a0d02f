import { decodeHTML } from 'entities';
import { textStart, type DocumentText } from '../html/document-text.js';
import { visibleTextReaches } from './visible-text.js';

/**
 * A soft 404: a page that answers 200 but says, in its title or its first
 * heading, that what was asked for is not there, and shows little else. No
 * tier gets a page that does not exist, so it ends the job as
 * TARGET_NOT_FOUND (refunded), as a 404 does.
 */

/** What the attempt reports (AttemptReport.classification), shown in billing.escalations. */
export const SOFT_404_CLASSIFICATION = 'soft_404';

/** Characters of the page read for its title and first heading. */
const HEAD_CHARS = 32 * 1024;
/** A not-found page shows its message, a search box and some links: a page with more text is content about the subject. */
export const SOFT_404_TEXT_CHARS = 1_500;

/** Not found, as sites put it in their title or heading, in the languages most pages are written in. */
const NOT_FOUND = new RegExp(
  [
    '^\\W*404\\b',
    '\\b404\\W{0,3}(?:error|page|not found|fehler|erreur|errore|error)\\b',
    '\\b(?:error|fehler|erreur|errore)\\W{0,3}404\\b',
    '\\b(?:page|document|file|post|article|product|resource) (?:was )?not found\\b',
    '\\bnot found\\W{0,3}404\\b',
    '^\\W*not found\\W*$',
    "\\bpage (?:does not|doesn['’]t|no longer) exists?\\b",
    '\\b(?:seite|datei) (?:wurde )?nicht gefunden\\b',
    '\\bpage (?:introuvable|non trouvée)\\b',
    '\\bp[áa]gina no encontrada\\b',
    '\\bp[áa]gina n[ãa]o encontrada\\b',
    '\\bpagina non trovata\\b',
    '\\bpagina niet gevonden\\b',
    '\\bnie znaleziono strony\\b',
    'страница не найдена',
    'ページが見つかりません',
    '找不到(?:该|此)?页面',
    '页面不存在',
  ].join('|'),
  'iu',
);

const TITLE = /<title\b[^>]*>([^<]{1,300})<\/title>/i;
const HEADING = /<h1\b[^>]*>([\s\S]{1,600}?)<\/h1>/gi;
/** Headings read: a site's name or menu title often comes first. */
const HEADINGS_READ = 3;

function readable(markup: string): string {
  return decodeHTML(markup.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
}

/** The title or top-level heading by which a page says it was not found, or null for a page that does not. */
export function softNotFound(html: DocumentText): string | null {
  const head = textStart(html, HEAD_CHARS);
  const said = [TITLE.exec(head)?.[1], ...[...head.matchAll(HEADING)].slice(0, HEADINGS_READ).map((m) => m[1])]
    .map((markup) => (markup === undefined ? '' : readable(markup)))
    .find((text) => text !== '' && NOT_FOUND.test(text));
  if (said === undefined) return null;
  return visibleTextReaches(html, SOFT_404_TEXT_CHARS) ? null : said;
}
