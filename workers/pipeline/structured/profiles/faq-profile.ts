import type { Element } from 'domhandler';
import { queryAll } from '../dom-query.js';
import { isJsonObject, lookup, textValue } from '../json-like-values.js';
import { collapseWhitespace, textOf } from '../node-text.js';
import type { Entity, JsonObject, JsonValue } from '../structured-data-model.js';
import { firstResolved, fromHeuristic, type Resolved } from './field-resolution.js';
import { headingLevel, sectionAfter } from './page-index.js';
import type { ProfileContext, ProfileDefinition } from './profile-model.js';

interface Pair {
  question: string;
  answer: string;
}

function pairFromQuestion(q: JsonObject): Pair | null {
  const question = textValue(q.name ?? q.text ?? null);
  const answerNode = lookup(q, 'acceptedAnswer') ?? lookup(q, 'suggestedAnswer');
  const answer = answerNode ? textValue(isJsonObject(answerNode.value) ? (answerNode.value.text ?? null) : answerNode.value) : null;
  return question && answer ? { question, answer } : null;
}

function toJson(pairs: Pair[]): JsonValue[] {
  return pairs.map((p) => ({ question: p.question, answer: p.answer }));
}

function questionsOf(v: JsonValue): JsonObject[] {
  const items = Array.isArray(v) ? v : [v];
  return items.filter(isJsonObject);
}

/** Question/answer pairs of FAQPage or QAPage entities, or loose Question entities. */
function fromFaqEntities(page: Entity[], all: Entity[]): Resolved | null {
  for (const entity of page) {
    const main = entity.value.mainEntity;
    if (main === undefined) continue;
    const pairs = questionsOf(main).map(pairFromQuestion).filter((p): p is Pair => p !== null);
    if (pairs.length > 0) {
      return { value: { questions: toJson(pairs) }, evidence: { source: entity.source, path: `${entity.path}.mainEntity`, raw: main } };
    }
  }
  const loose = all.filter((e) => e.types.includes('Question'));
  const pairs = loose.map((e) => pairFromQuestion(e.value)).filter((p): p is Pair => p !== null);
  if (pairs.length === 0) return null;
  const first = loose[0]!;
  return { value: { questions: toJson(pairs) }, evidence: { source: first.source, path: first.path, raw: first.value } };
}

function dedupe(pairs: Pair[]): Pair[] {
  const seen = new Set<string>();
  return pairs.filter((p) => (seen.has(p.question) ? false : (seen.add(p.question), true)));
}

function detailsPairs(ctx: ProfileContext): Pair[] {
  const pairs: Pair[] = [];
  for (const details of queryAll('details', ctx.data.document)) {
    const summary = details.children.find((c): c is Element => c.type === 'tag' && (c as Element).name === 'summary');
    if (!summary) continue;
    const question = textOf(summary);
    const answer = collapseWhitespace(details.children.filter((c) => c !== summary).map((c) => textOf(c)).join(' '));
    if (question && answer) pairs.push({ question, answer });
  }
  // Menus and consent banners use <details> too; when some summaries are questions, only those are kept.
  const questions = pairs.filter((p) => p.question.endsWith('?'));
  return dedupe(questions.length >= 2 ? questions : pairs);
}

function definitionListPairs(ctx: ProfileContext): Pair[] {
  const pairs: Pair[] = [];
  for (const dl of queryAll('dl', ctx.data.document)) {
    let question: string | null = null;
    for (const child of dl.children) {
      if (child.type !== 'tag') continue;
      const el = child as Element;
      if (el.name === 'dt') question = textOf(el);
      else if (el.name === 'dd' && question) {
        const answer = textOf(el);
        if (answer) pairs.push({ question, answer });
        question = null;
      }
    }
  }
  // Definition lists are also used for specs tables; only question-like terms count.
  return dedupe(pairs.filter((p) => p.question.endsWith('?')));
}

function headingPairs(ctx: ProfileContext): Pair[] {
  const pairs: Pair[] = [];
  for (const el of ctx.index.elements) {
    if (headingLevel(el) === null) continue;
    const question = textOf(el);
    if (!question.endsWith('?')) continue;
    const { paragraphs, items } = sectionAfter(ctx.index, el);
    const answer = [...paragraphs, ...items].join(' ');
    if (answer) pairs.push({ question, answer });
  }
  return dedupe(pairs);
}

function fromPage(ctx: ProfileContext): Resolved | null {
  const strategies: Array<[string, () => Pair[]]> = [
    ['details > summary', () => detailsPairs(ctx)],
    ['dl > dt + dd', () => definitionListPairs(ctx)],
    ['h2-h6 ending in "?" + following paragraphs', () => headingPairs(ctx)],
  ];
  for (const [selector, find] of strategies) {
    const pairs = find();
    if (pairs.length > 0) return fromHeuristic(selector, { questions: toJson(pairs) }, toJson(pairs));
  }
  return null;
}

/**
 * The faq profile has one field, `questions`: an array of `{ question, answer }`
 * with plain-text answers, in page order.
 */
export const faqProfile: ProfileDefinition = {
  name: 'faq',
  fields: ['questions'],
  matchesType: (t) => t === 'FAQPage' || t === 'QAPage',
  resolve(ctx) {
    const found = firstResolved(() => fromFaqEntities(ctx.entities, ctx.data.entities), () => fromPage(ctx));
    if (!found) return { questions: null };
    const questions = (found.value as JsonObject).questions ?? null;
    return { questions: { value: questions, evidence: found.evidence } };
  },
};
