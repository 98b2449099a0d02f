/**
 * npm start's check before it compiles anything: a stack already running
 * here runs from dist/, which a build would change under it, so the
 * gateway's and control plane's ports are checked first (stack.ts checks
 * them again as it starts). Exits 1, naming each taken port and its setting.
 */
import { loadConfig } from '../../common/config.js';
import { listenPortsMessage, stackListenPorts } from './listen-ports.js';

// Only the ports are read; production's other required settings are checked when the stack starts.
const cannotListen = await listenPortsMessage(stackListenPorts(loadConfig({ ...process.env, TRAWL_ENV: 'development' })));
if (cannotListen) {
  process.stderr.write(`${cannotListen}\n`);
  process.exit(1);
}
