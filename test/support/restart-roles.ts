import type { IsolatedStack } from '../../deploy/local/isolated-stack.js';
import { waitForHttp, type Role } from '../../deploy/local/processes.js';

/**
 * Restarts roles of the stack with settings of their own on top of the
 * stack's (none: back to the stack's own), for a suite that needs another
 * configuration, such as a premium proxy pool. Waits until the gateway
 * answers ready again.
 */
export async function restartRoles(stack: IsolatedStack, roles: readonly Role[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  for (const role of roles) {
    await stack.kill(role, 'SIGTERM');
    await stack.start(role, env);
  }
  await waitForHttp(`${stack.baseUrl}/api/v1/health/ready`, 60_000);
}
