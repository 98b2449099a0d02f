import { expect } from 'chai';
import type { SiteRoute } from '../fixtures/site-server.js';
import { GUARDED_TEXT, RENDERED_TEXT } from '../fixtures/tier-pages.js';
import type { apiClient } from '../support/api.js';

export type Api = ReturnType<typeof apiClient>;

/** An HTML page linking to `links`. */
export function linkPage(path: string, title: string, links: string[], extra = ''): SiteRoute {
  return {
    path,
    handle: ({ res }) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${title} is a page of the fixture site.</p>${extra}` +
          `${links.map((l) => `<a href="${l}">${l} page</a>`).join(' ')}</body></html>`,
      );
    },
  };
}

/** Polls a crawl until it leaves discovering/scraping (or the time runs out) and answers its last status. */
export async function waitForCrawl(api: Api, crawlId: string, timeoutMs: number, query = ''): Promise<any> {
  const until = Date.now() + timeoutMs;
  let body;
  do {
    const res = await api.get(`/api/v1/crawl/${crawlId}${query}`);
    body = res.body;
    // A control plane that is restarting answers 503 for a moment.
    if (res.status === 200 && !['discovering', 'scraping'].includes(body.status)) return body;
    await new Promise((r) => setTimeout(r, 200));
  } while (Date.now() < until);
  throw new Error(`crawl ${crawlId} still ${body.status} after ${timeoutMs} ms: ${JSON.stringify(body).slice(0, 400)}`);
}

/** Every finished page of a crawl, paging through include_results. */
export async function crawlResults(api: Api, crawlId: string): Promise<any[]> {
  const pages: any[] = [];
  for (let offset = 0; ; offset += 1000) {
    const res = await api.get(`/api/v1/crawl/${crawlId}?include_results=true&results_limit=1000&results_offset=${offset}`);
    pages.push(...res.body.results);
    if (res.body.results.length < 1000) return pages;
  }
}

/**
 * The tier fixture pages of a crawl planned up to tier 4: each completed at the
 * tier that serves it, charged that tier's price plus `addOnCredits`.
 */
export function expectPagesAtTheirTiers(pages: Map<string, any>, addOnCredits = 0): void {
  expect(pages.get('/')).to.include({ status: 'completed', tier_used: '1', credits_used: 1 + addOnCredits });
  expect(pages.get('/plain')).to.include({ status: 'completed', tier_used: '1', credits_used: 1 + addOnCredits });
  const guarded = pages.get('/tiers/client-hints');
  expect(guarded).to.include({ status: 'completed', tier_used: '2', credits_used: 1.5 + addOnCredits });
  expect(guarded.result.content).to.contain(GUARDED_TEXT);
  const app = pages.get('/tiers/js-app');
  expect(app).to.include({ status: 'completed', tier_used: '3', credits_used: 10 + addOnCredits });
  expect(app.result.content).to.contain(RENDERED_TEXT);
}
