import { freePort, type IsolatedStack } from '../../deploy/local/isolated-stack.js';
import { startRole, stopProcess, waitForHttp } from '../../deploy/local/processes.js';

export interface ExtraGateway {
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * One more gateway process in front of the stack's control plane, with
 * settings of its own (e.g. TRAWL_TRUSTED_PROXIES): what a deployment with
 * several gateways behind a load balancer runs.
 */
export async function startExtraGateway(stack: IsolatedStack, env: NodeJS.ProcessEnv = {}): Promise<ExtraGateway> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const gateway = startRole('gateway', { ...stack.env, GATEWAY_PORT: String(port), TRAWL_PUBLIC_BASE_URL: baseUrl, ...env }, (role, line) =>
    stack.output.push(`${role}:${port} | ${line}`),
  );
  await waitForHttp(`${baseUrl}/api/v1/health/live`, 60_000);
  return { baseUrl, stop: () => stopProcess(gateway, 10_000) };
}
