import { isJsonObject, numberValue, textValue, textValues } from '../json-like-values.js';
import { elementContents } from '../../../html/tags-in-text.js';
import { textOf } from '../node-text.js';
import { currencyCode, parseDecimal } from '../price-parsing.js';
import type { JsonValue } from '../structured-data-model.js';
import { firstResolved, fromElement, fromEntities, fromHeuristic, fromTags, firstString, type Resolved } from './field-resolution.js';
import { elementsWithHint, firstHintText, titleProbes } from './page-probes.js';
import { headingsMatching, sectionAfter } from './page-index.js';
import { placeText } from './place-text.js';
import type { ProfileContext, ProfileDefinition } from './profile-model.js';

const PERIODS: Record<string, string> = {
  year: 'year', yr: 'year', annum: 'year', annual: 'year', annually: 'year', jahr: 'year', an: 'year', 'año': 'year',
  month: 'month', mo: 'month', monat: 'month', mois: 'month', mes: 'month',
  week: 'week', wk: 'week', woche: 'week', semaine: 'week',
  day: 'day', tag: 'day', jour: 'day',
  hour: 'hour', hr: 'hour', stunde: 'hour', heure: 'hour', hora: 'hour',
};

function period(raw: string | null): string | null {
  if (!raw) return null;
  const key = raw.toLowerCase().replace(/[^a-zäöüñ]/g, '').replace(/ly$/, '');
  return PERIODS[key] ?? PERIODS[key.replace(/s$/, '')] ?? null;
}

/** `{ currency, min, max, period }` from a MonetaryAmount (or a bare number or string). */
export function toSalary(raw: JsonValue): JsonValue | null {
  if (!isJsonObject(raw)) {
    const text = textValue(raw);
    return text ? salaryFromText(text)?.value ?? null : null;
  }
  const currency = textValue(raw.currency ?? null);
  const value = raw.value;
  let min: number | null = null;
  let max: number | null = null;
  let unit: string | null = textValue(raw.unitText ?? null);
  if (isJsonObject(value)) {
    min = numberValue(value.minValue ?? value.value ?? null);
    max = numberValue(value.maxValue ?? value.value ?? null);
    unit = textValue(value.unitText ?? null) ?? unit;
  } else {
    min = max = numberValue(value ?? raw.minValue ?? null);
    if (raw.maxValue !== undefined) max = numberValue(raw.maxValue);
  }
  if (min === null && max === null) return null;
  return { currency: currency ? currency.toUpperCase() : null, min, max, period: period(unit) };
}

const SALARY_RE =
  /(?<c1>US\$|[$€£]|\b(?:USD|EUR|GBP|CHF|CAD|AUD)\b)\s?(?<min>\d[\d,.']*)\s?(?<k1>[kK])?(?:\s?(?:-|–|—|to|bis|à|a)\s?(?:US\$|[$€£]|\b(?:USD|EUR|GBP|CHF|CAD|AUD)\b)?\s?(?<max>\d[\d,.']*)\s?(?<k2>[kK])?)?(?:\s*(?:\/|per|a|an|pro|par|por)\s*(?<period>year|yr|annum|hour|hr|month|week|day|jahr|stunde|monat|an|mois|heure|año|mes|hora))?/i;

function salaryFromText(text: string): { value: JsonValue; raw: string } | null {
  const m = SALARY_RE.exec(text);
  if (!m || !m.groups) return null;
  const g = m.groups;
  // A bare "$5" with neither a range nor a period is not a salary.
  if (g.max === undefined && g.period === undefined) return null;
  const scale = (n: number | null, k: string | undefined): number | null => (n === null ? null : k ? n * 1000 : n);
  const min = scale(parseDecimal(g.min!), g.k1 ?? g.k2);
  const max = g.max === undefined ? min : scale(parseDecimal(g.max), g.k2 ?? g.k1);
  return { value: { currency: currencyCode(g.c1!), min, max, period: period(g.period ?? null) }, raw: m[0] };
}

function salaryFromPage(ctx: ProfileContext): Resolved | null {
  for (const el of elementsWithHint(ctx.index, /salary|compensation|\bpay\b|gehalt|remuneration/i, 200)) {
    const found = salaryFromText(textOf(el));
    if (found) return fromElement(el, found.value, found.raw);
  }
  const found = salaryFromText(ctx.index.bodyText());
  return found ? fromHeuristic('body', found.value, found.raw) : null;
}

/** Qualification texts; one string holding a list (HTML or lines) becomes its items. */
export function toRequirementList(raw: JsonValue): string[] | null {
  const out: string[] = [];
  const items = Array.isArray(raw) ? raw : [raw];
  for (const item of items) {
    if (typeof item === 'string' && /<li[\s>]/i.test(item)) {
      for (const content of elementContents(item, ['li'])) {
        const t = textValue(content);
        if (t) out.push(t);
      }
      continue;
    }
    if (typeof item === 'string' && /\n[^\S\n]*[-•*]/.test(item)) {
      for (const line of item.split('\n')) {
        const t = line.replace(/^\s*[-•*]\s*/, '').trim();
        if (t) out.push(t);
      }
      continue;
    }
    out.push(...textValues(item));
  }
  return out.length > 0 ? out : null;
}

const REQUIREMENT_HEADINGS =
  /requirements|qualifications|what you('ll)? (need|bring)|who you are|skills|must[- ]haves?|your profile|anforderungen|ihr profil|das bringst du mit|profil recherché|requisitos/i;

function requirementsFromPage(ctx: ProfileContext): Resolved | null {
  for (const heading of headingsMatching(ctx.index, REQUIREMENT_HEADINGS)) {
    const { items } = sectionAfter(ctx.index, heading);
    if (items.length > 0) return fromElement(heading, items, textOf(heading));
  }
  return null;
}

function toLocation(raw: JsonValue): string | null {
  if (isJsonObject(raw) && raw.address === undefined && raw.name === undefined && raw['@type'] === undefined) return null;
  return placeText(raw);
}

export const jobPostingProfile: ProfileDefinition = {
  name: 'job_posting',
  fields: ['title', 'company', 'location', 'salary', 'description', 'requirements'],
  matchesType: (t) => t === 'JobPosting',
  resolve(ctx) {
    const { data, entities } = ctx;
    return {
      title: firstResolved(fromEntities(entities, ['title', 'name'], textValue), ...titleProbes(data, ctx.index)),
      company: firstResolved(
        fromEntities(entities, ['hiringOrganization'], textValue),
        () => firstHintText(ctx.index, /company|employer|organization|organisation|arbeitgeber/i, (t) => (t.length <= 80 ? t : null)),
        fromTags(data, [['opengraph', 'og:site_name']], firstString),
      ),
      location: firstResolved(
        fromEntities(entities, ['jobLocation', 'applicantLocationRequirements'], toLocation),
        fromEntities(entities, ['jobLocationType'], (raw) => (textValue(raw)?.toUpperCase() === 'TELECOMMUTE' ? 'Remote' : null)),
        () => firstHintText(ctx.index, /location|job-?place|standort|arbeitsort/i, (t) => (t.length <= 100 ? t.replace(/^location:\s*/i, '') : null)),
      ),
      salary: firstResolved(fromEntities(entities, ['baseSalary', 'estimatedSalary'], toSalary), () => salaryFromPage(ctx)),
      description: firstResolved(
        fromEntities(entities, ['description'], textValue),
        () => (ctx.mainText?.trim() ? { value: ctx.mainText.trim(), evidence: { source: 'main_content', raw: null } } : null),
        fromTags(data, [['opengraph', 'og:description'], ['meta', 'description']], firstString),
      ),
      requirements: firstResolved(
        fromEntities(entities, ['qualifications', 'skills', 'experienceRequirements', 'educationRequirements'], toRequirementList),
        () => requirementsFromPage(ctx),
      ),
    };
  },
};
