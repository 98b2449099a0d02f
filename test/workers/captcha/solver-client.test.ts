import { expect } from 'chai';
import { CaptchaSolveError, solveCaptcha, submission, type SolverConfig } from '../../../workers/captcha/solver-client.js';
import { startCaptchaSolverServer, type CaptchaSolverTestServer } from '../../support/captcha-solver-server.js';
import { closedPort } from '../../support/closed-port.js';

const PAGE = 'https://shop.example/checkout';

describe('captcha solver client (2captcha protocol)', () => {
  let solver: CaptchaSolverTestServer;
  let config: SolverConfig;
  before(async () => {
    solver = await startCaptchaSolverServer();
    solver.register('v2-key', { method: 'userrecaptcha', path: '/checkout' });
    solver.register('fail-key', { method: 'hcaptcha', path: '/checkout', failWith: 'ERROR_CAPTCHA_UNSOLVABLE' });
    config = { baseUrl: solver.baseUrl, apiKey: solver.apiKey, timeoutMs: 5_000, pollIntervalMs: 20 };
  });
  after(() => solver.close());

  const failure = async (run: Promise<unknown>): Promise<CaptchaSolveError> => {
    try {
      await run;
    } catch (err) {
      if (err instanceof CaptchaSolveError) return err;
      throw err;
    }
    throw new Error('expected a CaptchaSolveError');
  };

  it('submits the task, polls past CAPCHA_NOT_READY and answers a token the site can verify', async () => {
    const token = await solveCaptcha(config, { kind: 'recaptcha_v2', sitekey: 'v2-key' }, PAGE, new AbortController().signal);
    expect(solver.verify(token, 'v2-key')).to.equal(true);
    expect(Object.fromEntries(solver.submissions.at(-1)!)).to.deep.equal({ key: solver.apiKey, pageurl: PAGE, json: '1', method: 'userrecaptcha', googlekey: 'v2-key' });
  });

  it('builds each kind of task with its own parameters', () => {
    expect(submission({ kind: 'recaptcha_v3', sitekey: 'k', action: 'buy' }, PAGE, 'api')).to.include({ method: 'userrecaptcha', googlekey: 'k', version: 'v3', action: 'buy' });
    expect(submission({ kind: 'recaptcha_v2', sitekey: 'k', invisible: true }, PAGE, 'api')).to.include({ invisible: '1' });
    expect(submission({ kind: 'hcaptcha', sitekey: 'k' }, PAGE, 'api')).to.include({ method: 'hcaptcha', sitekey: 'k' });
    expect(submission({ kind: 'turnstile', sitekey: 'k', action: 'login' }, PAGE, 'api')).to.include({ method: 'turnstile', sitekey: 'k', action: 'login' });
  });

  it("reports the service's error code when it cannot solve or refuses the task", async () => {
    expect((await failure(solveCaptcha(config, { kind: 'hcaptcha', sitekey: 'fail-key' }, PAGE, new AbortController().signal))).reason).to.equal('ERROR_CAPTCHA_UNSOLVABLE');
    expect((await failure(solveCaptcha(config, { kind: 'recaptcha_v2', sitekey: 'unknown' }, PAGE, new AbortController().signal))).reason).to.equal('ERROR_WRONG_GOOGLEKEY');
    expect((await failure(solveCaptcha({ ...config, apiKey: 'wrong' }, { kind: 'recaptcha_v2', sitekey: 'v2-key' }, PAGE, new AbortController().signal))).reason).to.equal(
      'ERROR_KEY_DOES_NOT_EXIST',
    );
  });

  it('gives up at its timeout, and on a service it cannot reach', async () => {
    const slow = await failure(solveCaptcha({ ...config, timeoutMs: 50, pollIntervalMs: 1_000 }, { kind: 'recaptcha_v2', sitekey: 'v2-key' }, PAGE, new AbortController().signal));
    expect(slow.reason).to.equal('TIMEOUT');
    const away = await failure(solveCaptcha({ ...config, baseUrl: `http://127.0.0.1:${await closedPort()}` }, { kind: 'recaptcha_v2', sitekey: 'v2-key' }, PAGE, new AbortController().signal));
    expect(away.reason).to.equal('UNREACHABLE');
  });
});
