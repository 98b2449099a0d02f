import { queryAll, queryOne } from '../dom-query.js';
import { textOf } from '../node-text.js';
import type { Entity, StructuredData } from '../structured-data-model.js';
import { buildPageIndex, headingsMatching, type PageIndex } from './page-index.js';
import { addToCartElement, priceHint } from './page-probes.js';
import type { ProfileName } from './profile-model.js';
import { PROFILES } from './profile-registry.js';

export interface ProfileDetection {
  profile: ProfileName;
  /** What decided it: embedded type, OpenGraph type, page signals, or nothing (article by default). */
  basis: 'structured_data' | 'opengraph' | 'page_signals' | 'default';
  /** Human-readable reasons, e.g. `json_ld:Product`, `add_to_cart_button`. */
  signals: string[];
}

/**
 * When a page declares several types, the more specific wins: a recipe blog
 * post is a recipe, a product page with an FAQ block is a product, an article
 * with an FAQ block is an article.
 */
const TYPE_PRIORITY: ProfileName[] = ['job_posting', 'recipe', 'event', 'product', 'article', 'faq'];

const COMMERCE_KEYS = ['offers', 'price', 'sku', 'gtin', 'gtin8', 'gtin12', 'gtin13', 'gtin14', 'mpn', 'brand', 'productID'];

/**
 * Product markup with neither an offer nor an identifier is usually there for
 * review stars in search results, on pages that are articles; it counts only
 * when no og:type=article or article element says otherwise.
 */
function isCommerceEntity(entity: Entity): boolean {
  return COMMERCE_KEYS.some((k) => entity.value[k] !== undefined);
}

function typedMatch(entities: Entity[], requireCommerce: boolean): ProfileDetection | null {
  for (const name of TYPE_PRIORITY) {
    const match = entities.find(
      (e) => e.types.some(PROFILES[name].matchesType) && (name !== 'product' || !requireCommerce || isCommerceEntity(e)),
    );
    if (match) {
      const type = match.types.find(PROFILES[name].matchesType)!;
      return { profile: name, basis: 'structured_data', signals: [`${match.source}:${type}`] };
    }
  }
  return null;
}

function fromEntities(data: StructuredData): ProfileDetection | null {
  for (const topLevel of [true, false]) {
    const found = typedMatch(data.entities.filter((e) => e.topLevel === topLevel), true);
    if (found) return found;
  }
  return null;
}

function fromWeakEntities(data: StructuredData): ProfileDetection | null {
  return typedMatch(data.entities, false);
}

function ogType(data: StructuredData): string {
  const raw = data.sources.opengraph['og:type'];
  return (Array.isArray(raw) ? (raw[0] ?? '') : (raw ?? '')).toLowerCase();
}

const INGREDIENTS = /^(ingredients?|zutaten|ingrédients|ingredientes|ingredienti)\b/i;
const STEPS = /^(instructions?|directions?|method|preparation|steps|zubereitung|préparation|preparación)\b/i;
const JOB_SECTIONS = /^(responsibilities|requirements|qualifications|what you('ll)? do|about the role|your tasks|ihre aufgaben|anforderungen)\b/i;
const APPLY = /^(apply( now| for this job| here)?|jetzt bewerben|postuler|aplicar)$/i;
const FAQ_TITLE = /\b(faq|faqs|frequently asked questions|häufige fragen|questions fréquentes|preguntas frecuentes)\b/i;
const EVENT_ACTION = /^(buy tickets|get tickets|tickets|register( now)?|rsvp|book (now|tickets))$/i;

function fromPageSignals(data: StructuredData, index: PageIndex): ProfileDetection | null {
  const doc = data.document;
  if (addToCartElement(index) && priceHint(index)) {
    return { profile: 'product', basis: 'page_signals', signals: ['add_to_cart_button', 'price_near_button'] };
  }
  if (headingsMatching(index, INGREDIENTS).length > 0 && headingsMatching(index, STEPS).length > 0) {
    return { profile: 'recipe', basis: 'page_signals', signals: ['ingredients_heading', 'instructions_heading'] };
  }
  const applyButton = index.elements.some((el) => (el.name === 'a' || el.name === 'button') && APPLY.test(textOf(el)));
  if (applyButton && headingsMatching(index, JOB_SECTIONS).length > 0) {
    return { profile: 'job_posting', basis: 'page_signals', signals: ['apply_button', 'job_section_heading'] };
  }
  const title = `${textOf(queryOne('title', doc))} ${textOf(queryOne('h1', doc))}`;
  // Cookie banners and site menus use <details> too; FAQ entries are questions.
  const questionSummaries = queryAll('details > summary', doc).filter((el) => textOf(el).endsWith('?')).length;
  const questionHeadings = index.elements.filter((el) => /^h[2-6]$/.test(el.name) && textOf(el).endsWith('?')).length;
  if (questionSummaries >= 2 || (FAQ_TITLE.test(title) && questionHeadings >= 2)) {
    return { profile: 'faq', basis: 'page_signals', signals: [questionSummaries >= 2 ? 'question_details_blocks' : 'question_headings'] };
  }
  return null;
}

/** Ticket links and dates also sit in news sidebars, so these count only on pages that are not articles. */
function fromEventSignals(data: StructuredData, index: PageIndex): ProfileDetection | null {
  const eventAction = index.elements.some((el) => (el.name === 'a' || el.name === 'button') && EVENT_ACTION.test(textOf(el)));
  const venue = index.elements.some((el) => /venue|event-location|event-place/i.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`));
  if (eventAction && venue && queryOne('time[datetime]', data.document)) {
    return { profile: 'event', basis: 'page_signals', signals: ['ticket_or_register_action', 'venue', 'time_element'] };
  }
  return null;
}

/**
 * Detects the page type: embedded structured-data types first, then
 * og:type=product, then page signals (buy button with a price, ingredient and
 * method headings, apply button, FAQ blocks), then og:type=article or an
 * article element, then product markup without offers and ticket links with a
 * venue and a date; a page with no signal is an article.
 */
export function detectProfile(data: StructuredData, index: PageIndex = buildPageIndex(data.document)): ProfileDetection {
  const typed = fromEntities(data);
  if (typed) return typed;
  const og = ogType(data);
  if (og === 'product' || og.startsWith('product.') || og === 'og:product') {
    return { profile: 'product', basis: 'opengraph', signals: [`og:type=${og}`] };
  }
  const page = fromPageSignals(data, index);
  if (page) return page;
  if (og === 'article') return { profile: 'article', basis: 'opengraph', signals: ['og:type=article'] };
  if (queryOne('article', data.document)) return { profile: 'article', basis: 'page_signals', signals: ['article_element'] };
  return fromWeakEntities(data) ?? fromEventSignals(data, index) ?? { profile: 'article', basis: 'default', signals: [] };
}
