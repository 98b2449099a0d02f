import { expect } from 'chai';
import type { FetchOutcome } from '../../../workers/fetching/fetch-result.js';
import { fetchThroughTiers } from '../../../workers/crawl/tiered-fetch.js';

const SHELL = '<!doctype html><html><body><div id="root"></div><script src="/app.js"></script></body></html>';
const ARTICLE = `<!doctype html><html><body><article><p>${'The harbour opened its new quay to ferries. '.repeat(10)}</p></article></body></html>`;

function page(html: string): FetchOutcome {
  const body = Buffer.from(html);
  return { kind: 'ok', statusCode: 200, finalUrl: 'https://example.com/', redirects: [], headers: {}, contentType: 'text/html', charset: 'utf-8', body, bytes: body.length, timings: { ttfbMs: 1, totalMs: 1 } };
}

const blocked: FetchOutcome = { kind: 'failed', code: 'BLOCKED', message: 'The target refused this client (403)', statusCode: 403, escalate: true };
const missing: FetchOutcome = { kind: 'failed', code: 'TARGET_NOT_FOUND', message: 'The target answered 404', statusCode: 404, escalate: false };

/** A fetcher answering each tier from `answers`, recording the tiers asked. */
function tiersAnswering(answers: Record<string, FetchOutcome | null>) {
  const asked: string[] = [];
  return {
    asked,
    fetchAt: async (tier: string) => {
      asked.push(tier);
      return answers[tier]!;
    },
  };
}

describe('crawl page fetches through the tier plan', () => {
  it('keeps a tier-1 answer without escalating', async () => {
    const f = tiersAnswering({ '1': page(ARTICLE) });
    const got = await fetchThroughTiers(['1', '2', '3', '4'], undefined, f.fetchAt);
    expect(got?.tier).to.equal('1');
    expect(f.asked).to.deep.equal(['1']);
  });

  it('moves a blocked page to the next tier, and a JavaScript shell straight to the first browser tier', async () => {
    const f = tiersAnswering({ '1': blocked, '2': page(SHELL), '3': page(ARTICLE) });
    const got = await fetchThroughTiers(['1', '2', '3', '4'], undefined, f.fetchAt);
    expect(f.asked).to.deep.equal(['1', '2', '3']);
    expect(got?.tier).to.equal('3');
    expect(got?.outcome.kind).to.equal('ok');
  });

  it('stops at the end of the plan, on a failure no tier passes, and on a shell when render_js is false', async () => {
    const atOne = tiersAnswering({ '1': blocked });
    expect(await fetchThroughTiers(['1'], undefined, atOne.fetchAt)).to.deep.equal({ outcome: blocked, tier: '1' });
    const notFound = tiersAnswering({ '1': missing });
    expect((await fetchThroughTiers(['1', '2', '3', '4'], undefined, notFound.fetchAt))?.tier).to.equal('1');
    expect(notFound.asked).to.deep.equal(['1']);
    const shell = tiersAnswering({ '1': page(SHELL) });
    expect((await fetchThroughTiers(['1', '2', '3', '4'], false, shell.fetchAt))?.tier).to.equal('1');
    const shellWithoutBrowser = tiersAnswering({ '1': page(SHELL) });
    expect((await fetchThroughTiers(['1', '2'], undefined, shellWithoutBrowser.fetchAt))?.tier).to.equal('1');
    expect(shellWithoutBrowser.asked).to.deep.equal(['1']);
  });

  it('takes a browser tier answer as it is, and gives up when a tier could not start in time', async () => {
    const rendered = tiersAnswering({ '4': page(SHELL) });
    expect((await fetchThroughTiers(['4'], true, rendered.fetchAt))?.tier).to.equal('4');
    const late = tiersAnswering({ '1': blocked, '2': null });
    expect(await fetchThroughTiers(['1', '2'], undefined, late.fetchAt)).to.equal(null);
  });
});
