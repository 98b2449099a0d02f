import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ROOT } from '../../deploy/local/processes.js';
import { apiRoutes, openApiDocument } from '../../gateway/api/routes.js';
import { createControlPlaneClient } from '../../gateway/control-plane-client.js';
import { ACCOUNT_EVENTS, CRAWL_OUTPUT_EVENT, CRAWL_WEBHOOK_EVENTS } from '../../common/event-types.js';

const run = promisify(execFile);

describe('the OpenAPI document derived from the route table', function () {
  this.timeout(60_000);
  // The control plane is never called: the table is only read.
  const routes = apiRoutes({ controlPlane: createControlPlaneClient('http://127.0.0.1:9'), publicBaseUrl: 'http://127.0.0.1:8080' });
  const doc = openApiDocument(routes, 'http://127.0.0.1:8080') as { paths: Record<string, Record<string, any>>; webhooks: Record<string, any> };

  it('passes redocly lint with no errors and no warnings', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'trawl-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(doc));
      const { stdout, stderr } = await run(path.join(ROOT, 'node_modules/.bin/redocly'), ['lint', file, '--max-problems', '50'], { cwd: dir });
      const output = `${stdout}\n${stderr}`;
      expect(output, output).to.contain('Your API description is valid');
      expect(output, output).not.to.match(/You have \d+ warning/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('documents the payload of every event the service sends', () => {
    for (const event of [...ACCOUNT_EVENTS, ...CRAWL_WEBHOOK_EVENTS, CRAWL_OUTPUT_EVENT]) {
      expect(doc.webhooks[event]?.post?.requestBody, event).to.exist;
    }
  });

  it('has one operation per route, with the error answers its auth kind and body imply', () => {
    for (const route of routes) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).to.be.an('object');
      expect(op.operationId).to.equal(route.operationId);
      if (route.auth === 'none') expect(op.security).to.deep.equal([]);
      else expect(op.responses['401'], route.path).to.be.an('object');
      if (route.request?.body) {
        expect(op.requestBody.content['application/json'].schema).to.be.an('object');
        expect(op.responses['413'].description).to.contain('PAYLOAD_TOO_LARGE');
        expect(op.responses['415'].description).to.contain('UNSUPPORTED_MEDIA_TYPE');
      }
      if (route.deprecation) {
        expect(op.deprecated).to.equal(true);
        expect(op.responses['200'].headers).to.include.keys('Deprecation', 'Sunset', 'Link');
      }
    }
  });

  it('documents path parameters from the request schema', () => {
    const params = doc.paths['/api/v1/jobs/{job_id}']!['get'].parameters;
    expect(params).to.deep.include.members([
      { name: 'job_id', in: 'path', required: true, description: 'The job_id a scrape answered with.', schema: params[0].schema },
    ]);
    expect(params[0].schema).to.include({ type: 'string', format: 'uuid' });
  });
});
