import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { TrawlError } from '../../common/errors.js';
import { parseFormBody, readRequestBody, type BodyType } from '../../gateway/http/form-body.js';

/** Sends one request to a local server that reads its body as a route taking `types` would, and answers what it read or refused. */
async function read(types: readonly BodyType[] | undefined, headers: Record<string, string>, body: Buffer | string, limit = 1024) {
  const server = http.createServer(async (req, res) => {
    try {
      const got = await readRequestBody(req, limit, types);
      res.end(JSON.stringify({ value: got?.value ?? null, mayHoldNul: got?.scan.mayHoldNul ?? null }));
    } catch (err) {
      const e = err as TrawlError;
      res.statusCode = e.httpStatus;
      res.end(JSON.stringify({ code: e.code, message: e.message, details: e.details }));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { method: 'POST', headers, body });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  } finally {
    server.close();
  }
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('form-encoded request bodies', () => {
  it('parses fields with + as a space and percent escapes as UTF-8', () => {
    expect(parseFormBody('grant_type=authorization_code&redirect_uri=https%3A%2F%2Fa.example%2Fcb%3Fx%3D1&name=a+b%2Bc&empty=&flag&&caf%C3%A9=%E2%9C%93')).to.deep.equal({
      grant_type: 'authorization_code',
      redirect_uri: 'https://a.example/cb?x=1',
      name: 'a b+c',
      empty: '',
      flag: '',
      'café': '✓',
    });
    expect(parseFormBody('')).to.deep.equal({});
  });

  it('refuses a field sent twice, naming it', () => {
    expect(() => parseFormBody('code=a&x=1&code=b')).to.throw(TrawlError, 'code: sent more than once');
  });

  it('refuses a bad percent escape', () => {
    for (const text of ['a=%zz', 'a=%E2%9C', 'a=%']) expect(() => parseFormBody(text), text).to.throw(TrawlError, 'percent escape');
  });

  it('keeps a field named __proto__ as a plain field', () => {
    const parsed = parseFormBody('__proto__=x&constructor=y');
    expect(Object.getPrototypeOf(parsed)).to.equal(Object.prototype);
    expect(Object.keys(parsed)).to.deep.equal(['__proto__', 'constructor']);
  });

  it('reads a form body on a route that takes one, compressed or not, and always runs the NUL check', async () => {
    expect(await read(['form', 'json'], { ...FORM, 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' }, 'a=1&b=%00')).to.deep.equal({
      status: 200,
      body: { value: { a: '1', b: '\u0000' }, mayHoldNul: true },
    });
    const gz = await read(['form'], { ...FORM, 'content-encoding': 'gzip' }, gzipSync('a=compressed'));
    expect(gz.body.value).to.deep.equal({ a: 'compressed' });
    expect((await read(['form', 'json'], { 'content-type': 'application/json' }, '{"a":1}')).body.value).to.deep.equal({ a: 1 });
  });

  it('holds form bodies to the same size limit, counted after decompression', async () => {
    expect((await read(['form'], FORM, `a=${'x'.repeat(2000)}`)).body.code).to.equal('PAYLOAD_TOO_LARGE');
    expect((await read(['form'], { ...FORM, 'content-encoding': 'gzip' }, gzipSync(`a=${'x'.repeat(50_000)}`))).body.code).to.equal('PAYLOAD_TOO_LARGE');
  });

  it('refuses invalid UTF-8 in a form body', async () => {
    const res = await read(['form'], FORM, Buffer.from([0x61, 0x3d, 0xff, 0xfe]));
    expect(res.status).to.equal(400);
    expect(res.body.message).to.contain('UTF-8');
  });

  it('refuses media types the route does not take, naming the ones it does', async () => {
    const jsonOnly = await read(undefined, FORM, 'a=1');
    expect(jsonOnly).to.deep.include({ status: 415 });
    expect(jsonOnly.body.message).to.equal('Send the body as application/json');
    const both = await read(['form', 'json'], { 'content-type': 'text/plain' }, 'a=1');
    expect(both.status).to.equal(415);
    expect(both.body.message).to.equal('Send the body as application/x-www-form-urlencoded or application/json');
    expect((await read(['form'], { 'content-type': 'application/json' }, '{}')).status).to.equal(415);
  });
});
