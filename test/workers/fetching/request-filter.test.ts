import { expect } from 'chai';
import type { Route } from 'playwright-core';
import { createRequestFilter, isTrackerHost } from '../../../workers/fetching/request-filter.js';

/** A route as Playwright hands it over, recording what the filter decided. */
function fakeRoute(url: string, resourceType: string, navigation = false) {
  const decided: string[] = [];
  const route = {
    request: () => ({ url: () => url, resourceType: () => resourceType, isNavigationRequest: () => navigation }),
    continue: async () => void decided.push('continue'),
    abort: async (reason: string) => void decided.push(`abort:${reason}`),
  } as unknown as Route;
  return { route, decided };
}

describe('the browser request filter', () => {
  const refused: Array<[string, boolean]> = [];
  const guard = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
  const filter = createRequestFilter({ guard, loadImages: false, onRefused: (url, nav) => refused.push([url, nav]) });
  const withImages = createRequestFilter({ guard, loadImages: true, onRefused: () => undefined });

  const decide = async (f: typeof filter, url: string, type: string, nav = false) => {
    const { route, decided } = fakeRoute(url, type, nav);
    await f(route);
    return decided[0];
  };

  it('lets documents, scripts, styles and data through', async () => {
    expect(await decide(filter, 'http://127.0.0.1:8000/', 'document', true)).to.equal('continue');
    expect(await decide(filter, 'http://127.0.0.1:8000/app.js', 'script')).to.equal('continue');
    expect(await decide(filter, 'http://127.0.0.1:8000/site.css', 'stylesheet')).to.equal('continue');
    expect(await decide(filter, 'http://127.0.0.1:8000/api', 'fetch')).to.equal('continue');
    expect(await decide(filter, 'data:text/plain,hi', 'fetch')).to.equal('continue');
  });

  it('blocks fonts, media, beacons and images (without a screenshot), and known trackers', async () => {
    for (const type of ['font', 'media', 'beacon', 'ping', 'image']) {
      expect(await decide(filter, `http://127.0.0.1:8000/x.${type}`, type), type).to.equal('abort:blockedbyclient');
    }
    expect(await decide(withImages, 'http://127.0.0.1:8000/x.png', 'image')).to.equal('continue');
    expect(await decide(filter, 'https://www.google-analytics.com/collect', 'script')).to.equal('abort:blockedbyclient');
    expect(isTrackerHost('stats.g.doubleclick.net')).to.equal(true);
    expect(isTrackerHost('notdoubleclick.net')).to.equal(false);
  });

  it('refuses private addresses and other schemes, telling which were navigations', async () => {
    expect(await decide(filter, 'http://10.0.0.1/admin', 'document', true)).to.equal('abort:blockedbyclient');
    expect(await decide(filter, 'http://169.254.169.254/latest/meta-data/', 'fetch')).to.equal('abort:blockedbyclient');
    expect(await decide(filter, 'file:///etc/passwd', 'document', true)).to.equal('abort:blockedbyclient');
    expect(refused).to.deep.equal([
      ['http://10.0.0.1/admin', true],
      ['http://169.254.169.254/latest/meta-data/', false],
      ['file:///etc/passwd', true],
    ]);
  });
});
