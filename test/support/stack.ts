import { bootIsolatedStack, createAccountWithKey, waitForWorkers, type IsolatedStack } from '../../deploy/local/isolated-stack.js';
import { startOpenAiTestServer, type OpenAiTestServer } from '../fixtures/openai-server.js';

export type TestStack = IsolatedStack & { llm: OpenAiTestServer };
export { waitForWorkers };

let booting: Promise<TestStack> | null = null;

/**
 * The whole system, started once for the test run on resources of its own,
 * with its LLM provider pointed at a local server that speaks the
 * chat-completions protocol.
 */
export function getStack(): Promise<TestStack> {
  booting ??= (async () => {
    const llm = await startOpenAiTestServer();
    const stack = await bootIsolatedStack({
      // Separate names let several test runs share this machine's services at once.
      name: process.env.TRAWL_TEST_STACK ?? 'test',
      redisDb: Number(process.env.TRAWL_TEST_REDIS_DB ?? 13),
      env: { TRAWL_PIPELINE_BUDGET_MS: '5000', TRAWL_LLM_BASE_URL: llm.baseUrl, TRAWL_LLM_API_KEY: llm.apiKey, TRAWL_LLM_MODEL: llm.model, TRAWL_LLM_TIMEOUT_MS: '5000' },
    });
    await waitForWorkers(stack.baseUrl, 30_000, 'extract');
    return Object.assign(stack, { llm });
  })();
  return booting;
}

export async function stopStackIfStarted(): Promise<void> {
  if (!booting) return;
  const stack = await booting.catch(() => null);
  await stack?.stop();
  await stack?.llm.close();
}

export function createTestAccount(stack: TestStack, microcents: number): Promise<{ accountId: string; key: string }> {
  return createAccountWithKey(stack, microcents);
}
