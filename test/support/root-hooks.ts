import path from 'node:path';
import { getStack, resetIpLimits, startedStack, stopStackIfStarted } from './stack.js';

/** Whether a suite under `suite` was loaded from test/e2e/. */
function runsEndToEnd(suite: Mocha.Suite): boolean {
  return (suite.file ?? '').includes(`${path.sep}e2e${path.sep}`) || suite.suites.some(runsEndToEnd);
}

export const mochaHooks = {
  // The shared stack boots once, up front, when an end-to-end suite is to run: on a busy machine its processes
  // may take minutes to start, more than any one suite's hook waits.
  async beforeAll(this: Mocha.Context) {
    const root = this.test?.parent;
    if (!root || !runsEndToEnd(root)) return;
    this.timeout(300_000);
    await getStack();
  },
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
