import net from 'node:net';
import type { TrawlConfig } from '../../common/config.js';

/** A port a role of `npm start` listens on, with the setting that moves it. */
export interface ListenPort {
  setting: string;
  host: string;
  port: number;
}

/** The ports the stack's own processes listen on. */
export function stackListenPorts(config: Pick<TrawlConfig, 'gatewayHost' | 'gatewayPort' | 'controlPlaneHost' | 'controlPlanePort'>): ListenPort[] {
  return [
    { setting: 'GATEWAY_PORT', host: config.gatewayHost, port: config.gatewayPort },
    { setting: 'CONTROL_PLANE_PORT', host: config.controlPlaneHost, port: config.controlPlanePort },
  ];
}

/** Why nothing could listen on host:port now ('in use', or the error's own words), null when a listen there works. */
export async function listenProblem({ host, port }: ListenPort): Promise<string | null> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE' ? 'in use' : err.message));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

/**
 * Why the stack cannot start here, or null: each port nothing could listen
 * on, named with its setting. Started over a running stack, the new gateway
 * and control plane would only restart in a loop while the old ones answered.
 */
export async function listenPortsMessage(ports: readonly ListenPort[]): Promise<string | null> {
  const problems: string[] = [];
  for (const p of ports) {
    const problem = await listenProblem(p);
    if (problem) problems.push(`${p.host}:${p.port} (${p.setting}): ${problem}`);
  }
  if (problems.length === 0) return null;
  return [
    `Trawl cannot listen on ${problems.join('; ')}.`,
    'A port in use usually means Trawl is running already (stop it with Ctrl-C where it was started) or another program holds it; stop that, or choose other ports with the settings named.',
  ].join('\n');
}
