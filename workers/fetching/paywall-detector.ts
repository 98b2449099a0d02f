import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { walkElements } from './page-tree.js';
import { textMatches, type DocumentText } from '../html/document-text.js';

/**
 * Recognises a page whose content a subscription wall holds back. One sign
 * alone is not enough: an article may mention subscribing, and many sites
 * keep an empty paywall container on every page. A wall is the schema.org
 * mark that the content is not free with the content missing, or a
 * subscription call to continue reading inside a wall container or in
 * place of the content.
 */

/** Below this much visible text, a marked or walled article is only its teaser. */
export const PAYWALL_TEASER_CHARS = 1_500;

/** Names (in a class or id) of the elements sites and paywall vendors wrap the wall in. */
export const WALL_NAMES = ['paywall', 'regwall', 'subscription-wall', 'subscriber-only', 'premium-wall', 'meter-wall', 'tp-modal', 'tp-container'];
/**
 * An element whose class or id names a wall container, or that carries
 * data-paywall, in the markup: an attribute's value, quoted or not, up to the
 * name. A wall's name elsewhere (a script, a link to the subscription page, a
 * tracking setting) marks no container, and many pages without a wall carry
 * one; an escaped quote (markup in a script's string) starts no value. An
 * attribute starts after a space or a quote, never inside another's value, so
 * each stretch of markup is read by one attribute at most and the pattern
 * stays linear on any page (a run like "class=class=..." took seconds when
 * every "class=" in it began a value). The name comes before the look back at
 * what precedes it, so the pattern is tried only where "class" or "id"
 * stands: looking back first, at every character, tripled its cost.
 */
const WALL_CONTAINER_MARKUP = new RegExp(
  `(?:class|id)(?<=[\\s"'](?:class|id))\\s*=\\s*(?:"[^"<>]*?|'[^'<>]*?|(?=[^\\s"'\\\\])[^\\s"'<>]*?)(?:${WALL_NAMES.join('|')})|\\sdata-paywall\\b`,
  'i',
);
/**
 * Markup of every wall that may stand in front of a page with much text: a
 * wall container, or the schema.org mark that the content is not free
 * (isAccessibleForFree beside a false, in JSON-LD or microdata, whichever
 * comes first). A page with neither is walled only if it shows little text.
 */
export const PAYWALL_MARKS = new RegExp(
  ['isAccessibleForFree[^<]{0,60}false', 'false[^<]{0,60}isAccessibleForFree', WALL_CONTAINER_MARKUP.source].join('|'),
  'i',
);

/** An element the markup names a wall container: its class or id holds a wall's name, or it carries data-paywall. */
function isWallContainer(el: Element): boolean {
  const { attribs } = el;
  if ('data-paywall' in attribs) return true;
  const cls = attribs['class']?.toLowerCase();
  const id = attribs['id']?.toLowerCase();
  return WALL_NAMES.some((name) => (cls !== undefined && cls.includes(name)) || (id !== undefined && id.includes(name)));
}

/** The elements the paywall check reads, each in document order. */
export interface WallMarkup {
  /** Wall containers (isWallContainer); empty when not looked for. */
  containers: Element[];
  /** Scripts of type application/ld+json. */
  jsonLd: Element[];
  /** Elements with itemprop="isAccessibleForFree". */
  notFreeMarks: Element[];
}

/**
 * Every element the paywall check reads, found in one walk of the tree. The
 * three selector queries it stands for (the containers', the JSON-LD
 * scripts', the microdata mark's) each matched every element of the page, and
 * together were most of the check's time on a page marked not free. The
 * matching is the selectors' in HTML: names lowercase, the script's type
 * compared without case, the containers' names found anywhere in the class
 * or id without case, itemprop compared exactly.
 */
export function findWallMarkup(root: AnyNode, withContainers: boolean): WallMarkup {
  const found: WallMarkup = { containers: [], jsonLd: [], notFreeMarks: [] };
  walkElements(root, (el) => {
    if (withContainers && isWallContainer(el)) found.containers.push(el);
    if (el.name === 'script' && el.attribs['type']?.toLowerCase() === 'application/ld+json') found.jsonLd.push(el);
    if (el.attribs['itemprop'] === 'isAccessibleForFree') found.notFreeMarks.push(el);
  });
  return found;
}

/** Calls to subscribe in order to read on: what a wall says, and what an article about subscriptions does not. */
const WALL_PHRASES = [
  /\b(?:subscribe|sign up|become a (?:member|subscriber)|start (?:your|a) (?:free )?trial)\b[^.!?]{0,60}\bto (?:continue|keep) reading\b/i,
  /\b(?:continue|keep) reading\b[^.!?]{0,40}\b(?:subscribe|subscription|subscriber)s?\b/i,
  /\bto read (?:the|this) (?:full|whole|rest of the) (?:article|story)\b[^.!?]{0,40}\bsubscri/i,
  /\b(?:this|the) (?:article|story|content|post) is (?:only )?(?:available|reserved|exclusive|for) (?:only )?(?:to |for )?(?:paying |premium |our )?(?:subscribers|members)\b/i,
  /\b(?:subscribers?|members?)[- ]only (?:content|article|story)\b/i,
  /\balready a (?:subscriber|member)\?\s*(?:sign|log) ?in\b/i,
];

const NOT_FREE = /"isAccessibleForFree"\s*:\s*(?:false|"false")/i;
const PAYWALLED_SELECTOR = /"cssSelector"\s*:\s*"([^"]+)"/;

/** How many characters of the page's visible text the elements of `selector` hold; null when the selector is unusable. */
function textUnder($: CheerioAPI, selector: string): number | null {
  try {
    return $(selector).text().replace(/\s+/g, ' ').trim().length;
  } catch {
    return null;
  }
}

/** Why the page is behind a paywall, or null. `visibleText` is the page's visible text, spaces collapsed; `markup` the HTML `$` was parsed from. */
export function paywallEvidence($: CheerioAPI, visibleText: string, markup: DocumentText): string | null {
  const thin = visibleText.length < PAYWALL_TEASER_CHARS;
  const phrase = WALL_PHRASES.some((p) => p.test(visibleText));
  // A page whose markup shows no wall container has none: its elements are not tested for one.
  const found = findWallMarkup($.root().get(0)!, textMatches(WALL_CONTAINER_MARKUP, markup));
  const walled = found.containers.length > 0;
  const phraseInWall = walled && WALL_PHRASES.some((p) => p.test($(found.containers).text()));

  const jsonLd = $(found.jsonLd).text();
  const microdataNotFree = found.notFreeMarks.some((el) => /^false$/i.test(($(el).attr('content') ?? $(el).text()).trim()));
  if (NOT_FREE.test(jsonLd) || microdataNotFree) {
    // The page names the part a subscription unlocks: it is walled when that part did not come.
    const section = PAYWALLED_SELECTOR.exec(jsonLd)?.[1];
    const delivered = section ? textUnder($, section) : null;
    if (delivered !== null) {
      if (delivered < PAYWALL_TEASER_CHARS / 3) return `the content marked as not free (${section}) is missing`;
    } else if (walled || phrase || thin) {
      return 'the page is marked as not free and shows only a teaser';
    }
  }
  if (phraseInWall) return 'a subscription wall asks to subscribe to continue reading';
  if (phrase && thin) return 'the page asks to subscribe to continue reading in place of the content';
  return null;
}
