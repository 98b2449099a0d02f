import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { BODY_IDLE_TIMEOUT_MS, MAX_JSON_DEPTH } from '../../common/limits.js';
import { routeTable } from '../../gateway/api/routes.js';
import { createControlPlaneClient } from '../../gateway/control-plane-client.js';
import { bodyLimitOf } from '../../gateway/http/register-routes.js';
import { routeLabel, type AnyRoute } from '../../gateway/http/route.js';
import { getStack, type TestStack } from '../support/stack.js';
import { rawRequest, type RawResponse } from './gateway-raw-http.js';

const UNISSUED_KEY = `sk_test_${'H'.repeat(32)}`;
const SOME_UUID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

interface Attack {
  name: string;
  body?: Buffer;
  headers?: Record<string, string>;
  /** Replaces every path parameter. */
  param?: string;
}

function bodyAttacks(route: AnyRoute): Attack[] {
  const limit = route.request?.body ? bodyLimitOf(route) : 1024 * 1024;
  const json = { 'content-type': 'application/json' };
  return [
    { name: 'deep nesting', headers: json, body: Buffer.from(`{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}`) },
    { name: 'a huge string', headers: json, body: Buffer.from(`{"zz":"${'a'.repeat(limit - 64)}"}`) },
    {
      name: 'a compressed bomb',
      headers: { ...json, 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.concat([Buffer.from('{"zz":"'), Buffer.alloc(limit * 4, 0x61), Buffer.from('"}')])),
    },
    { name: 'a raw NUL byte', headers: json, body: Buffer.from('{"zz":"a\u0000b"}') },
    { name: 'a NUL escape in a field name', headers: json, body: Buffer.from('{"a\\u0000b":1}') },
    { name: 'invalid UTF-8', headers: json, body: Buffer.from([0x7b, 0x22, 0x7a, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]) },
  ];
}

function paramAttacks(route: AnyRoute): Attack[] {
  if (!route.path.includes('{')) return [];
  return [
    { name: 'a NUL byte in a path parameter', param: 'a%00b' },
    { name: 'invalid UTF-8 in a path parameter', param: '%ff%fe%c3' },
    { name: 'a huge path parameter', param: 'x'.repeat(6_000) },
  ];
}

function pathOf(route: AnyRoute, param = SOME_UUID): string {
  return route.path.replace(/\{\w+\}/g, param);
}

/** A credential of the kind the route takes, present but never issued: the gateway lets it through to the body checks. */
function credentialsFor(route: AnyRoute): Record<string, string> {
  if (route.auth === 'none') return {};
  return route.auth === 'session' ? { authorization: `Bearer ${UNISSUED_KEY}` } : { 'x-api-key': UNISSUED_KEY };
}

function expectRefusal(res: RawResponse, what: string): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body).slice(0, 300)}`).to.be.within(400, 499);
  expect(res.body.error, what).to.be.a('string');
  expect(res.body.message, what).to.be.a('string');
  expect(res.body.request_id, what).to.be.a('string').and.not.empty;
}

describe('hostile input on every route of the route table', function () {
  this.timeout(60_000);
  let stack: TestStack;
  // The table is only read here; the stack's own gateway answers the requests.
  const routes = routeTable({ controlPlane: createControlPlaneClient('http://127.0.0.1:9'), publicBaseUrl: 'http://127.0.0.1:8080' });

  before(async () => {
    stack = await getStack();
  });

  it(`covers every route (${routes.length})`, () => {
    expect(routes.map(routeLabel)).to.include.members(['POST /api/v1/scrape', 'POST /api/v1/extract', 'GET /api/v1/jobs/{job_id}', 'GET /api/v1/health/live']);
  });

  for (const route of routes) {
    describe(routeLabel(route), () => {
      const credentials = credentialsFor(route);
      for (const attack of [...bodyAttacks(route), ...paramAttacks(route)]) {
        it(`answers ${attack.name} with a 4xx in the error envelope`, async () => {
          const res = await rawRequest(stack.baseUrl, {
            method: route.method,
            path: pathOf(route, attack.param),
            headers: { ...credentials, ...attack.headers },
            ...(attack.body ? { body: attack.body } : {}),
            closeWaitMs: 50,
          });
          expectRefusal(res, `${routeLabel(route)}, ${attack.name}`);
        });
      }
    });
  }

  it(`answers a body that stalls with a 4xx on every route`, async function () {
    this.timeout(BODY_IDLE_TIMEOUT_MS + 30_000);
    const answers = await Promise.all(
      routes.map((route) =>
        rawRequest(stack.baseUrl, {
          method: route.method,
          path: pathOf(route),
          headers: { ...credentialsFor(route), 'content-type': 'application/json' },
          contentLength: 1_000,
          body: Buffer.from('{"url":"ht'),
          closeWaitMs: 2_000,
        }),
      ),
    );
    answers.forEach((res, i) => {
      const route = routes[i]!;
      expectRefusal(res, routeLabel(route));
      // A body route waits for the body, then refuses it and closes; a route that takes no body refuses at once.
      expect(res.status, routeLabel(route)).to.equal(route.request?.body ? 408 : 400);
      if (route.request?.body) expect(res.closed, routeLabel(route)).to.equal(true);
    });
  });

  it(`still nests up to ${MAX_JSON_DEPTH} levels deep where a body is taken`, async () => {
    const res = await rawRequest(stack.baseUrl, {
      method: 'POST',
      path: '/api/v1/scrape/estimate',
      headers: { 'content-type': 'application/json', 'x-api-key': UNISSUED_KEY },
      body: Buffer.from(`{"url":"https://example.com","zz":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`),
    });
    expect(res.status).to.equal(400);
    expect(res.body.details.fields.map((f: { field: string }) => f.field)).to.include('body');
    expect(res.body.message).to.contain('unknown field');
  });
});
