import net from 'node:net';
import { expect } from 'chai';
import { loadConfig } from '../../common/config.js';
import { freePort } from '../../deploy/local/isolated-stack.js';
import { listenPortsMessage, stackListenPorts } from '../../deploy/local/listen-ports.js';

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
});
