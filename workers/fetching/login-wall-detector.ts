import type { CheerioAPI } from 'cheerio';

/**
 * Recognises a sign-in form standing in for the page asked for: a password
 * field on a page with little else, reached by a redirect to a sign-in
 * address or headed as a sign-in. A sign-in page asked for by its own
 * address is what the caller wanted, and an article with a sign-in box in
 * its sidebar has content around it.
 */

/** Above this much visible text, a password field is part of a page, not the page. */
export const LOGIN_WALL_TEXT_CHARS = 1_500;

const LOGIN_PATH = /(?:^|[/_.-])(?:log-?in|sign-?in|signon|logon|auth(?:enticate)?|sso)(?:$|[/_.?-])|\/session\/new\b/i;
const LOGIN_WORDS = /\b(?:log ?in|sign ?in|log ?on|authenticate|members? area)\b/i;

function isLoginPath(url: string): boolean {
  try {
    return LOGIN_PATH.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

export function isLoginWall($: CheerioAPI, visibleText: string, urls: { requested: string; final: string }): boolean {
  if (visibleText.length >= LOGIN_WALL_TEXT_CHARS) return false;
  if ($('input[type="password" i]').length === 0) return false;
  if (isLoginPath(urls.requested)) return false;
  if (urls.final !== urls.requested && isLoginPath(urls.final)) return true;
  const headings = $('title, h1, h2, legend, button, input[type="submit" i]')
    .map((_, el) => ($(el).attr('value') ?? '') + ' ' + $(el).text())
    .get()
    .join(' ');
  return LOGIN_WORDS.test(headings);
}
