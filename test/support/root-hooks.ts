import { resetIpLimits, startedStack, stopStackIfStarted } from './stack.js';

export const mochaHooks = {
  // Every test is a client that has sent nothing yet: per-address limit counts (tight, e.g. 3 sign-ups an hour) start from zero.
  async beforeEach() {
    const booting = startedStack();
    if (booting) await resetIpLimits(await booting);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopStackIfStarted();
  },
};
