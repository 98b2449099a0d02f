import { queryAll } from '../dom-query.js';
import { toIsoDate } from '../date-normalization.js';
import { isJsonObject, textValue, urlValues } from '../json-like-values.js';
import { textOf } from '../node-text.js';
import type { JsonValue } from '../structured-data-model.js';
import { firstResolved, fromElement, fromEntities, fromTags, type Resolved } from './field-resolution.js';
import { contentImages, descriptionProbes, firstTimeElement, imageTagProbes, titleProbes } from './page-probes.js';
import type { ProfileContext, ProfileDefinition } from './profile-model.js';

/** Article, NewsArticle, BlogPosting, ScholarlyArticle, LiveBlogPosting... */
export function isArticleType(type: string): boolean {
  return type.endsWith('Article') || (type.endsWith('Posting') && type !== 'JobPosting') || type === 'Report';
}

function looksLikeUrl(s: string): boolean {
  return /^(https?:)?\/\//i.test(s);
}

/** Author names joined with ", "; profile URLs (article:author often holds one) are not names. */
export function toAuthor(raw: JsonValue): string | null {
  const items = Array.isArray(raw) ? raw : [raw];
  const names: string[] = [];
  for (const item of items) {
    const name = isJsonObject(item) ? textValue(item.name ?? null) : textValue(item);
    if (name && !looksLikeUrl(name) && !names.includes(name)) names.push(name);
  }
  return names.length > 0 ? names.join(', ') : null;
}

function toDate(raw: JsonValue): string | null {
  const text = textValue(raw);
  return text ? toIsoDate(text) : null;
}

const BYLINE = /^\s*(?:by|von|par|por|di|door)\s+/i;

function authorFromPage(ctx: ProfileContext): Resolved | null {
  const els = [
    ...queryAll('[rel~="author"], [class*="author" i] [class*="name" i], .byline, [class*="byline" i], [class*="author" i]', ctx.data.document),
  ];
  for (const el of els) {
    const raw = textOf(el);
    const name = raw.replace(BYLINE, '').replace(/\s*[|,•·].*$/, '').trim();
    if (name.length >= 3 && name.length <= 80 && !looksLikeUrl(name)) return fromElement(el, name, raw);
  }
  return null;
}

function firstParagraph(text: string): string | null {
  const para = text.split(/\n\s*\n/).map((p) => p.trim()).find((p) => p.length >= 40);
  if (!para) return null;
  if (para.length <= 300) return para;
  const cut = para.slice(0, 300);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('! '), cut.lastIndexOf('? '));
  return end > 80 ? cut.slice(0, end + 1) : `${cut.slice(0, cut.lastIndexOf(' '))}…`;
}

/** Values taken from the caller's main-content text carry no raw copy: it would repeat the whole text. */
function fromMainText(value: string | null): Resolved | null {
  return value ? { value, evidence: { source: 'main_content', raw: null } } : null;
}

export const articleProfile: ProfileDefinition = {
  name: 'article',
  fields: ['title', 'author', 'published_date', 'content', 'summary', 'images'],
  matchesType: isArticleType,
  resolve(ctx) {
    const { data, entities } = ctx;
    const mainText = ctx.mainText?.trim() ? ctx.mainText : null;
    return {
      title: firstResolved(fromEntities(entities, ['headline', 'name'], textValue), ...titleProbes(data, ctx.index)),
      author: firstResolved(
        fromEntities(entities, ['author', 'creator'], toAuthor),
        fromTags(data, [['opengraph', 'article:author'], ['meta', 'author'], ['meta', 'dc.creator'], ['meta', 'parsely-author'], ['meta', 'sailthru.author']], toAuthor),
        () => authorFromPage(ctx),
      ),
      published_date: firstResolved(
        fromEntities(entities, ['datePublished', 'dateCreated', 'uploadDate'], toDate),
        fromTags(
          data,
          [
            ['opengraph', 'article:published_time'],
            ['opengraph', 'og:published_time'],
            ['meta', 'date'],
            ['meta', 'pubdate'],
            ['meta', 'publishdate'],
            ['meta', 'publish-date'],
            ['meta', 'dc.date'],
            ['meta', 'dc.date.issued'],
            ['meta', 'dcterms.created'],
            ['meta', 'parsely-pub-date'],
            ['meta', 'sailthru.date'],
          ],
          (raw) => toDate(raw[0] ?? null),
        ),
        () => firstTimeElement(ctx.index),
      ),
      content: firstResolved(
        () => fromMainText(mainText),
        fromEntities(entities, ['articleBody', 'text'], textValue),
      ),
      summary: firstResolved(
        fromEntities(entities, ['description', 'abstract'], textValue),
        ...descriptionProbes(data),
        () => fromMainText(mainText ? firstParagraph(mainText) : null),
      ),
      images: firstResolved(
        fromEntities(entities, ['image', 'thumbnailUrl'], (raw) => urlValues(raw, data.url)),
        ...imageTagProbes(data),
        () => contentImages(data, 'article') ?? contentImages(data, 'main'),
      ),
    };
  },
};

