import { expect } from 'chai';
import { loadConfig } from '../../common/config.js';

describe('configuration', () => {
  it('deploys tier 5 only with a captcha solver URL', () => {
    expect(loadConfig({}).availableTiers).to.deep.equal(['1', '2', '3', '4']);
    const solving = loadConfig({ TRAWL_CAPTCHA_SOLVER_URL: 'http://127.0.0.1:9', TRAWL_CAPTCHA_SOLVER_KEY: 'k' });
    expect(solving.availableTiers).to.deep.equal(['1', '2', '3', '4', '5']);
    expect(solving.captcha).to.deep.equal({ solverUrl: 'http://127.0.0.1:9', solverKey: 'k', solveTimeoutMs: 180_000, pollIntervalMs: 5_000 });
    expect(loadConfig({ TRAWL_AVAILABLE_TIERS: '1,2,5' }).availableTiers).to.deep.equal(['1', '2']);
    expect(loadConfig({ TRAWL_AVAILABLE_TIERS: '1,2', TRAWL_CAPTCHA_SOLVER_URL: 'http://127.0.0.1:9' }).availableTiers).to.deep.equal(['1', '2']);
  });
});
