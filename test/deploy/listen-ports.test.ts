import { execFile } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { loadConfig } from '../../common/config.js';
import { freePort } from '../../deploy/local/isolated-stack.js';
import { listenPortsMessage, stackListenPorts } from '../../deploy/local/listen-ports.js';
import { ROOT } from '../../deploy/local/processes.js';

describe('npm start port check', () => {
  it('names the gateway and control-plane ports with the settings that move them', () => {
    const config = loadConfig({ ...process.env, GATEWAY_PORT: '18080', CONTROL_PLANE_PORT: '15051' });
    expect(stackListenPorts(config)).to.deep.equal([
      { setting: 'GATEWAY_PORT', host: config.gatewayHost, port: 18080 },
      { setting: 'CONTROL_PLANE_PORT', host: config.controlPlaneHost, port: 15051 },
    ]);
  });

  it('passes free ports and leaves them free', async () => {
    const port = await freePort();
    expect(await listenPortsMessage([{ setting: 'GATEWAY_PORT', host: '127.0.0.1', port }])).to.equal(null);
    expect(await listenPortsMessage([{ setting: 'GATEWAY_PORT', host: '127.0.0.1', port }]), 'the probe closed its listener').to.equal(null);
  });

  it('refuses a port another process listens on, naming it, its setting and a running stack', async () => {
    const [free, held] = [await freePort(), await freePort()];
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(held, '127.0.0.1', r));
    try {
      const message = await listenPortsMessage([
        { setting: 'GATEWAY_PORT', host: '127.0.0.1', port: free },
        { setting: 'CONTROL_PLANE_PORT', host: '127.0.0.1', port: held },
      ]);
      expect(message).to.contain(`127.0.0.1:${held} (CONTROL_PLANE_PORT): in use`);
      expect(message).not.to.contain(`:${free}`);
      expect(message).to.contain('Trawl is running already');
    } finally {
      holder.close();
    }
  });

  it('reports an address this machine cannot listen on in the error\'s words', async () => {
    const message = await listenPortsMessage([{ setting: 'GATEWAY_PORT', host: '192.0.2.1', port: 8080 }]);
    expect(message).to.match(/192\.0\.2\.1:8080 \(GATEWAY_PORT\): .*EADDRNOTAVAIL/);
  });

  it('stops npm start before it compiles when a port is taken, and lets it go on when both are free', async function () {
    this.timeout(30_000);
    const run = promisify(execFile);
    const preflight = (env: Record<string, string>) =>
      run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'deploy/local/ports-preflight.ts')], { cwd: ROOT, env: { ...process.env, ...env } });
    const [gateway, controlPlane] = [await freePort(), await freePort()];
    const env = { GATEWAY_PORT: String(gateway), CONTROL_PLANE_PORT: String(controlPlane), GATEWAY_HOST: '127.0.0.1', CONTROL_PLANE_HOST: '127.0.0.1' };
    await preflight(env);
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(gateway, '127.0.0.1', r));
    try {
      const refused = await preflight(env).then(
        () => null,
        (err: { code: number; stderr: string }) => err,
      );
      expect(refused, 'the preflight exits non-zero').to.not.equal(null);
      expect(refused!.code).to.equal(1);
      expect(refused!.stderr).to.contain(`127.0.0.1:${gateway} (GATEWAY_PORT): in use`);
    } finally {
      holder.close();
    }
  });
});
