import { stopStackIfStarted } from './stack.js';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopStackIfStarted();
  },
};
