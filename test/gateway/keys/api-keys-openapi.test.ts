import { expect } from 'chai';
import { apiRoutes, openApiDocument } from '../../../gateway/api/routes.js';
import { createControlPlaneClient } from '../../../gateway/control-plane-client.js';

describe('API key routes in the OpenAPI document', () => {
  // The control plane is never called: the table is only read.
  const routes = apiRoutes({ controlPlane: createControlPlaneClient('http://127.0.0.1:9'), publicBaseUrl: 'http://127.0.0.1:8080' });
  const doc = openApiDocument(routes, 'http://127.0.0.1:8080') as { paths: Record<string, Record<string, any>> };

  it('lists every key route under the API keys tag, taking a key or a session token', () => {
    const expected = [
      ['post', '/api/v1/api-keys'],
      ['get', '/api/v1/api-keys'],
      ['patch', '/api/v1/api-keys/{key_id}'],
      ['delete', '/api/v1/api-keys/{key_id}'],
      ['post', '/api/v1/api-keys/{key_id}/regenerate'],
      ['get', '/api/v1/api-keys/{key_id}/decrypt'],
      ['get', '/api/v1/api-keys/{key_id}/limits'],
      ['put', '/api/v1/api-keys/{key_id}/limits'],
      ['delete', '/api/v1/api-keys/{key_id}/limits'],
      ['get', '/api/v1/api-keys/{key_id}/usage'],
      ['get', '/api/v1/api-keys/{key_id}/usage/by-tier'],
      ['get', '/api/v1/api-keys/{key_id}/usage/errors'],
      ['get', '/api/v1/api-keys/{key_id}/usage/requests'],
      ['get', '/api/v1/api-keys/{key_id}/usage/timeseries'],
    ];
    for (const [method, path] of expected) {
      const op = doc.paths[path!]?.[method!];
      expect(op, `${method} ${path}`).to.be.an('object');
      expect(op.tags).to.deep.equal(['API keys']);
      expect(op.security).to.deep.equal([{ ApiKey: [] }, { SessionToken: [] }]);
      if (path!.includes('{key_id}')) expect(op.responses['404'].description).to.contain('NOT_FOUND');
    }
    expect(doc.paths['/api/v1/api-keys/{key_id}']!['delete'].responses['204']).to.be.an('object');
  });

  it("documents the key's own limits on the routes they refuse", () => {
    expect(doc.paths['/api/v1/scrape']!['post'].responses['402'].description).to.contain('KEY_BUDGET_EXCEEDED');
    expect(doc.paths['/api/v1/extract']!['post'].responses['402'].description).to.contain('KEY_BUDGET_EXCEEDED');
    expect(doc.paths['/api/v1/jobs/{job_id}']!['get'].responses['429'].description).to.contain('api_key_request_limit');
    expect(doc.paths['/api/v1/jobs/{job_id}']!['get'].responses['429'].description).to.contain('test_key_daily');
  });
});
