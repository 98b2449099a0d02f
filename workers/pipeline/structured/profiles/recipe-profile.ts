import { toIsoDuration } from '../date-normalization.js';
import { isJsonObject, textValue, textValues } from '../json-like-values.js';
import { elementContents } from '../../../html/tags-in-text.js';
import { textOf } from '../node-text.js';
import type { JsonObject, JsonValue } from '../structured-data-model.js';
import { firstResolved, fromElement, fromEntities, fromHeuristic, type Resolved } from './field-resolution.js';
import { headingsMatching, sectionAfter } from './page-index.js';
import { titleProbes } from './page-probes.js';
import type { ProfileContext, ProfileDefinition } from './profile-model.js';

/** Step texts from strings, HowToStep, HowToSection and ItemList, flattened in order. */
export function toInstructionList(raw: JsonValue): string[] | null {
  const out: string[] = [];
  const visit = (v: JsonValue): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (typeof v === 'string') {
      if (/<(li|p)[\s>]/i.test(v)) {
        for (const content of elementContents(v, ['li', 'p'])) {
          const t = textValue(content);
          if (t) out.push(t);
        }
      } else {
        for (const line of v.split(/\r?\n/)) {
          const t = textValue(line.replace(/^\s*(\d+[.)]|[-•*])\s+/, ''));
          if (t) out.push(t);
        }
      }
    } else if (isJsonObject(v)) {
      if (v.itemListElement !== undefined) visit(v.itemListElement);
      else {
        const t = textValue(v.text ?? v.name ?? v.description ?? null);
        if (t) out.push(t);
      }
    }
  };
  visit(raw);
  return out.length > 0 ? out : null;
}

function toYield(raw: JsonValue): string | null {
  const texts = textValues(raw);
  if (texts.length === 0) return null;
  return texts.reduce((best, t) => (t.length > best.length ? t : best));
}

function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** NutritionInformation as `{ calories: "240 kcal", fat_content: "9 g", ... }`. */
function toNutrition(raw: JsonValue): JsonValue | null {
  if (!isJsonObject(raw)) return null;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith('@')) continue;
    const text = textValue(value);
    if (text) out[snakeCase(key)] = text;
  }
  return Object.keys(out).length > 0 ? out : null;
}

const INGREDIENT_HEADINGS = /^(ingredients?|zutaten|ingrédients|ingredientes|ingredienti|składniki|ingrediënten)\b/i;
const INSTRUCTION_HEADINGS =
  /^(instructions?|directions?|method|preparation|steps|how to make( it)?|zubereitung|anleitung|préparation|preparación|elaboración|procedimento|preparazione|przygotowanie|bereiding)\b/i;

function listAfterHeading(ctx: ProfileContext, pattern: RegExp, allowParagraphs: boolean): Resolved | null {
  for (const heading of headingsMatching(ctx.index, pattern)) {
    const { items, paragraphs } = sectionAfter(ctx.index, heading);
    const texts = items.length > 0 ? items : allowParagraphs ? paragraphs : [];
    if (texts.length > 0) return fromElement(heading, texts, textOf(heading));
  }
  return null;
}

function labelled(ctx: ProfileContext, pattern: RegExp, normalise: (s: string) => JsonValue | null): Resolved | null {
  const m = pattern.exec(ctx.index.bodyText());
  if (!m) return null;
  return fromHeuristic('body', normalise(m[1]!.trim()), m[0]);
}

export const recipeProfile: ProfileDefinition = {
  name: 'recipe',
  fields: ['name', 'ingredients', 'instructions', 'cook_time', 'servings', 'nutrition'],
  matchesType: (t) => t === 'Recipe',
  resolve(ctx) {
    const { data, entities } = ctx;
    return {
      name: firstResolved(fromEntities(entities, ['name', 'headline'], textValue), ...titleProbes(data, ctx.index)),
      ingredients: firstResolved(
        fromEntities(entities, ['recipeIngredient', 'ingredients'], (raw) => {
          const list = textValues(raw);
          return list.length > 0 ? list : null;
        }),
        () => listAfterHeading(ctx, INGREDIENT_HEADINGS, false),
      ),
      instructions: firstResolved(
        fromEntities(entities, ['recipeInstructions'], toInstructionList),
        () => listAfterHeading(ctx, INSTRUCTION_HEADINGS, true),
      ),
      cook_time: firstResolved(
        fromEntities(entities, ['cookTime', 'totalTime'], (raw) => {
          const t = textValue(raw);
          return t ? toIsoDuration(t) : null;
        }),
        () => labelled(ctx, /\b(?:cook(?:ing)? time|total time|kochzeit|gesamtzeit|temps de cuisson|tiempo de cocción)\s*:?\s*((?:\d+\s*(?:hours?|hrs?|h|minutes?|mins?|min\.?|std\.?|stunden?)\s*)+)/i, toIsoDuration),
      ),
      servings: firstResolved(
        fromEntities(entities, ['recipeYield', 'yield'], toYield),
        () => labelled(ctx, /\b(?:serves|servings|yield|portionen|portions|porciones|porzioni)\s*:?\s*(\d+(?:\s*[-–]\s*\d+)?(?:\s+(?:servings|people|portions|persons|personen))?)/i, (s) => s),
      ),
      nutrition: firstResolved(
        fromEntities(entities, ['nutrition'], toNutrition),
        () => labelled(ctx, /\bcalories\s*:?\s*(\d+\s*(?:kcal|cal)?)/i, (s) => ({ calories: s })),
      ),
    };
  },
};
