/**
 * The tools our converter is measured against: Mozilla Readability on
 * linkedom for main content, turndown (with its GFM plugin) and
 * node-html-markdown for HTML to Markdown.
 */
import { createRequire } from 'node:module';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { NodeHtmlMarkdown } from 'node-html-markdown';

const require = createRequire(import.meta.url);

export function createTurndown(): TurndownService {
  const { gfm } = require('turndown-plugin-gfm') as { gfm: TurndownService.Plugin };
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  service.use(gfm);
  service.remove(['script', 'style', 'noscript', 'template', 'head', 'title']);
  return service;
}

export function createNodeHtmlMarkdown(): NodeHtmlMarkdown {
  return new NodeHtmlMarkdown();
}

export interface ReadabilityResult {
  text: string;
  html: string;
}

export function readabilityExtract(html: string): ReadabilityResult {
  try {
    const { document } = parseHTML(html) as unknown as { document: unknown };
    const article = new Readability(document as never).parse();
    return { text: article?.textContent ?? '', html: article?.content ?? '' };
  } catch {
    return { text: '', html: '' };
  }
}
