import { isTag, type Document, type Element } from 'domhandler';
import { absoluteUrl } from './absolute-url.js';
import { textOf } from './node-text.js';
import type { MarkupItem, MarkupValue } from './structured-data-model.js';

/** Prefixes of the RDFa initial context that pages rely on without declaring them. */
const INITIAL_PREFIXES: Record<string, string> = {
  schema: 'http://schema.org/',
  og: 'http://ogp.me/ns#',
  dc: 'http://purl.org/dc/terms/',
  dcterms: 'http://purl.org/dc/terms/',
  foaf: 'http://xmlns.com/foaf/0.1/',
};

interface Context {
  vocab: string;
  prefixes: Record<string, string>;
  subject: MarkupItem | null;
}

function tokens(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter((t) => t !== '');
}

function parsePrefixes(value: string, inherited: Record<string, string>): Record<string, string> {
  const out = { ...inherited };
  const parts = tokens(value);
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const name = parts[i]!;
    if (name.endsWith(':')) out[name.slice(0, -1).toLowerCase()] = parts[i + 1]!;
  }
  return out;
}

function expandType(term: string, ctx: Context): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(term)) return term;
  const colon = term.indexOf(':');
  if (colon > 0) {
    const iri = ctx.prefixes[term.slice(0, colon).toLowerCase()];
    if (iri) return iri + term.slice(colon + 1);
  }
  return ctx.vocab ? ctx.vocab + term : term;
}

/** Property names stay compact: a vocabulary term stays a term, a prefixed name keeps its prefix. */
function propertyName(term: string, ctx: Context): string {
  if (ctx.vocab && term.startsWith(ctx.vocab)) return term.slice(ctx.vocab.length);
  return term;
}

function literalValue(el: Element, baseUrl: string): MarkupValue {
  const a = el.attribs;
  if (a.content !== undefined) return a.content.trim();
  if (a.resource !== undefined) return absoluteUrl(a.resource, baseUrl) ?? a.resource;
  if (a.href !== undefined && (el.name === 'a' || el.name === 'link' || el.name === 'area')) return absoluteUrl(a.href, baseUrl) ?? '';
  if (a.src !== undefined) return absoluteUrl(a.src, baseUrl) ?? '';
  if (el.name === 'time' && a.datetime !== undefined) return a.datetime.trim();
  if ((el.name === 'data' || el.name === 'meter') && a.value !== undefined) return a.value.trim();
  return textOf(el);
}

/** RDFa Lite items (elements with typeof), nested through property, in document order. */
export function extractRdfaLite(document: Document, baseUrl: string): MarkupItem[] {
  const items: MarkupItem[] = [];
  const walk = (el: Element, parent: Context): void => {
    const a = el.attribs;
    let ctx = parent;
    if (a.vocab !== undefined || a.prefix !== undefined) {
      ctx = {
        ...parent,
        vocab: a.vocab !== undefined ? a.vocab.trim() : parent.vocab,
        prefixes: a.prefix !== undefined ? parsePrefixes(a.prefix, parent.prefixes) : parent.prefixes,
      };
    }
    const properties = tokens(a.property).map((p) => propertyName(p, ctx));
    if (a.typeof !== undefined) {
      const item: MarkupItem = { type: tokens(a.typeof).map((t) => expandType(t, ctx)), properties: {} };
      if (a.resource !== undefined && a.resource.trim() !== '') item.id = absoluteUrl(a.resource, baseUrl) ?? a.resource.trim();
      if (properties.length > 0 && parent.subject) {
        for (const p of properties) (parent.subject.properties[p] ??= []).push(item);
      } else {
        items.push(item);
      }
      ctx = { ...ctx, subject: item };
    } else if (properties.length > 0 && parent.subject) {
      const value = literalValue(el, baseUrl);
      for (const p of properties) (parent.subject.properties[p] ??= []).push(value);
    }
    for (const child of el.children) if (isTag(child)) walk(child, ctx);
  };
  const root: Context = { vocab: '', prefixes: INITIAL_PREFIXES, subject: null };
  for (const child of document.children) if (isTag(child)) walk(child, root);
  return items;
}
