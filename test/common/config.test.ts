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

  it('gives the gateway 32 MB for ended jobs\' answers unless told otherwise, and none with 0', () => {
    expect(loadConfig({}).gatewayJobBodiesBytes).to.equal(32 * 1024 * 1024);
    expect(loadConfig({ TRAWL_GATEWAY_JOB_BODIES_MB: '8' }).gatewayJobBodiesBytes).to.equal(8 * 1024 * 1024);
    expect(loadConfig({ TRAWL_GATEWAY_JOB_BODIES_MB: '0' }).gatewayJobBodiesBytes).to.equal(0);
  });
});
