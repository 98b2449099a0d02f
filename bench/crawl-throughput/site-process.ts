/**
 * The bench site served from its own process (so neither crawler shares an
 * event loop with it): prints its origin, then answers `hits` on stdin with
 * the requests per path as JSON, and `reset` by clearing them.
 */
import { startStaticSiteServer } from '../../test/fixtures/static-site-server.js';

const site = await startStaticSiteServer(process.argv[2]!);
process.stdout.write(`${site.origin}\n`);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line: string) => {
  for (const command of line.split('\n').filter(Boolean)) {
    if (command === 'reset') site.hits.clear();
    process.stdout.write(`${JSON.stringify(command === 'hits' ? Object.fromEntries(site.hits) : { ok: true })}\n`);
  }
});
process.stdin.on('end', () => void site.close().then(() => process.exit(0)));
