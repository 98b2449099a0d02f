import { expect } from 'chai';
import { createServer } from 'node:net';
import { request } from 'undici';
import type { AddressInfo } from 'node:net';
import { TrawlError } from '../../../../common/errors.js';
import {
  EXTRACTION_PROMPT_LIMITS,
  LlmInvalidJsonError,
  LlmStatusError,
  LlmTimeoutError,
  LlmUnreachableError,
  extractWithLlm,
  isLlmStatusError,
  validateExtractionPrompt,
  type LlmConfig,
} from '../../../../workers/pipeline/structured/index.js';
import { startOpenAiTestServer, type OpenAiTestServer } from '../../../fixtures/openai-server.js';
import { closedPort } from '../../../support/closed-port.js';

const CONTENT = `# Acme Anvil 3000

Price: $129.50
In stock: yes
Colours: black, red, green
Weight: 45 kg
`;

const SCHEMA = {
  title: 'Product details',
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' }, in_stock: { type: 'boolean' }, colours: { type: 'array', items: { type: 'string' } } },
};

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  expect.fail('expected the call to fail');
}

describe('structured/llm client', () => {
  let server: OpenAiTestServer;
  let config: LlmConfig;

  before(async () => {
    server = await startOpenAiTestServer();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.setBehaviour({ kind: 'answer' });
    server.requests.length = 0;
    config = { baseUrl: server.baseUrl, apiKey: server.apiKey, model: server.model, timeoutMs: 5000 };
  });

  it('asks for structured output with the schema and returns the parsed data, model and usage', async () => {
    const result = await extractWithLlm({ content: CONTENT, prompt: 'Extract the product.', schema: SCHEMA, sourceUrl: 'https://shop.example/anvil' }, config);
    expect(result.data).to.deep.equal({ name: 'Acme Anvil 3000', price: 129.5, in_stock: true, colours: ['black', 'red', 'green'] });
    expect(result.model_used).to.equal(server.model);
    expect(result.extraction_method).to.equal('llm');
    expect(result.usage!.total_tokens).to.equal(result.usage!.prompt_tokens! + result.usage!.completion_tokens!);

    const [sent] = server.requests;
    expect(sent!.path).to.equal('/v1/chat/completions');
    expect(sent!.headers.authorization).to.equal(`Bearer ${server.apiKey}`);
    const body = sent!.body as { model: string; messages: Array<{ role: string; content: string }>; response_format: Record<string, unknown> };
    expect(body.model).to.equal(server.model);
    expect(body.messages.map((m) => m.role)).to.deep.equal(['system', 'user']);
    expect(body.messages[1]!.content).to.include('Extract the product.');
    expect(body.messages[1]!.content).to.include('Source URL: https://shop.example/anvil');
    expect(body.response_format).to.deep.equal({ type: 'json_schema', json_schema: { name: 'Product_details', schema: SCHEMA, strict: false } });
  });

  it('sets strict only for schemas that close and require every property', async () => {
    const strict = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };
    await extractWithLlm({ content: CONTENT, schema: strict }, config);
    const format = (server.requests[0]!.body as { response_format: { json_schema: { strict: boolean; name: string } } }).response_format;
    expect(format.json_schema.strict).to.equal(true);
    expect(format.json_schema.name).to.equal('extraction');
  });

  it('uses JSON mode without a schema', async () => {
    const result = await extractWithLlm({ content: CONTENT, prompt: 'Summarise the page.' }, config);
    expect(result.data).to.deep.equal({ title: 'Acme Anvil 3000', word_count: 16, line_count: 7 });
    expect((server.requests[0]!.body as { response_format: unknown }).response_format).to.deep.equal({ type: 'json_object' });
  });

  it('cuts the page content to the configured character budget', async () => {
    const long = `# Title\n\n${'x'.repeat(5000)}TAIL-MARKER`;
    await extractWithLlm({ content: long, prompt: 'Go.' }, { ...config, maxContentChars: 1000 });
    const user = (server.requests[0]!.body as { messages: Array<{ content: string }> }).messages[1]!.content;
    expect(user).to.include('(first 1000 characters)');
    expect(user).not.to.include('TAIL-MARKER');
    expect(user.length).to.be.lessThan(1400);
  });

  it('reads JSON from a fenced ```json block in the reply', async () => {
    server.setBehaviour({ kind: 'fenced' });
    const result = await extractWithLlm({ content: CONTENT, schema: SCHEMA }, config);
    expect(result.data).to.deep.equal({ name: 'Acme Anvil 3000', price: 129.5, in_stock: true, colours: ['black', 'red', 'green'] });
  });

  it('reports an unreachable provider', async () => {
    const port = await closedPort();
    const err = await rejection(extractWithLlm({ content: CONTENT, prompt: 'x' }, { ...config, baseUrl: `http://127.0.0.1:${port}/v1` }));
    expect(err).to.be.instanceOf(LlmUnreachableError);
    expect((err as LlmUnreachableError).code).to.equal('UPSTREAM_ERROR');
    expect((err as LlmUnreachableError).retryable).to.equal(true);
    expect((err as Error).message).to.match(/ECONNREFUSED/);
  });

  /** A provider that drops the connection without answering for the first `drops` requests, then proxies to the fixture. */
  async function droppingProvider(drops: number): Promise<{ baseUrl: string; seen: () => number; close(): Promise<void> }> {
    let seen = 0;
    const proxy = createServer((socket) => {
      seen += 1;
      if (seen <= drops) {
        socket.once('data', () => socket.destroy());
        return;
      }
      const upstream = new URL(server.baseUrl);
      import('node:net').then(({ connect }) => {
        const target = connect(Number(upstream.port), upstream.hostname);
        socket.pipe(target).pipe(socket);
        target.on('error', () => socket.destroy());
        socket.on('error', () => target.destroy());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    return {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      seen: () => seen,
      close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
    };
  }

  it('tries once more when the connection closes before any answer', async () => {
    const provider = await droppingProvider(1);
    try {
      const result = await extractWithLlm({ content: CONTENT, prompt: 'Extract the product.', schema: SCHEMA }, { ...config, baseUrl: provider.baseUrl });
      expect(result.extraction_method).to.equal('llm');
      expect(provider.seen()).to.equal(2);
      expect(server.requests).to.have.length(1);
    } finally {
      await provider.close();
    }
  });

  it('reports the provider unreachable when the connection closes twice', async () => {
    const provider = await droppingProvider(2);
    try {
      const err = await rejection(extractWithLlm({ content: CONTENT, prompt: 'x' }, { ...config, baseUrl: provider.baseUrl }));
      expect(err).to.be.instanceOf(LlmUnreachableError);
      expect(provider.seen()).to.equal(2);
    } finally {
      await provider.close();
    }
  });

  it('reports a non-2xx answer with its status', async () => {
    server.setBehaviour({ kind: 'status', status: 500 });
    const err = await rejection(extractWithLlm({ content: CONTENT, prompt: 'x' }, config));
    expect(err).to.be.instanceOf(LlmStatusError);
    expect(isLlmStatusError(err)).to.equal(true);
    expect((err as LlmStatusError).status).to.equal(500);
    expect((err as LlmStatusError).retryable).to.equal(true);
    expect((err as LlmStatusError).details).to.include({ provider_status: 500, provider_message: 'simulated failure 500' });
  });

  it('reports a rejected key and an unknown model as non-retryable status errors', async () => {
    const badKey = await rejection(extractWithLlm({ content: CONTENT, prompt: 'x' }, { ...config, apiKey: 'sk-wrong' }));
    expect((badKey as LlmStatusError).status).to.equal(401);
    expect((badKey as LlmStatusError).retryable).to.equal(false);
    const badModel = await rejection(extractWithLlm({ content: CONTENT, prompt: 'x' }, { ...config, model: 'no-such-model' }));
    expect((badModel as LlmStatusError).status).to.equal(404);
    expect((badModel as Error).message).to.include('no-such-model');
  });

  it('reports a response body that is not JSON', async () => {
    server.setBehaviour({ kind: 'garbage' });
    const err = await rejection(extractWithLlm({ content: CONTENT, prompt: 'x' }, config));
    expect(err).to.be.instanceOf(LlmInvalidJsonError);
    expect((err as LlmInvalidJsonError).code).to.equal('EXTRACTION_FAILED');
    expect((err as Error).message).to.include('response body is not JSON');
  });

  it('reports a model message without JSON, and a refusal', async () => {
    server.setBehaviour({ kind: 'prose' });
    const prose = await rejection(extractWithLlm({ content: CONTENT, prompt: 'x' }, config));
    expect(prose).to.be.instanceOf(LlmInvalidJsonError);
    expect((prose as Error).message).to.include('message is not JSON');
    server.setBehaviour({ kind: 'refusal' });
    const refusal = await rejection(extractWithLlm({ content: CONTENT, prompt: 'x' }, config));
    expect((refusal as Error).message).to.include('refused');
  });

  it('gives up on a slow provider after the timeout', async () => {
    server.setBehaviour({ kind: 'slow', delayMs: 5000 });
    const err = await rejection(extractWithLlm({ content: CONTENT, prompt: 'x' }, { ...config, timeoutMs: 200 }));
    expect(err).to.be.instanceOf(LlmTimeoutError);
    expect((err as LlmTimeoutError).code).to.equal('TIMEOUT');
    expect((err as LlmTimeoutError).details).to.deep.equal({ timeout_ms: 200 });
  });

  it('refuses prompts over the endpoint limit before calling the provider', async () => {
    expect(EXTRACTION_PROMPT_LIMITS).to.deep.equal({ extract: 2000, scrape: 4000 });
    const prompt = 'p'.repeat(2001);
    const err = await rejection(extractWithLlm({ content: CONTENT, prompt, endpoint: 'extract' }, config));
    expect(err).to.be.instanceOf(TrawlError);
    expect((err as TrawlError).code).to.equal('VALIDATION_ERROR');
    expect((err as TrawlError).details).to.include({ field: 'extraction_prompt', limit: 2000, length: 2001 });
    expect(server.requests).to.have.length(0);
    await extractWithLlm({ content: CONTENT, prompt, endpoint: 'scrape' }, config);
    expect(server.requests).to.have.length(1);
  });

  it('refuses a call with neither prompt nor schema', async () => {
    const err = await rejection(extractWithLlm({ content: CONTENT }, config));
    expect((err as TrawlError).code).to.equal('VALIDATION_ERROR');
  });
});

describe('test provider (fixture) request checks', () => {
  let server: OpenAiTestServer;
  before(async () => {
    server = await startOpenAiTestServer();
  });
  after(async () => {
    await server.close();
  });

  async function post(body: unknown): Promise<{ status: number; error: string }> {
    const res = await request(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.body.json()) as { error?: { code: string } };
    return { status: res.statusCode, error: json.error?.code ?? '' };
  }

  it('rejects requests a real provider would reject', async () => {
    const messages = [{ role: 'user', content: 'hi' }];
    expect(await post({ model: server.model, messages })).to.deep.equal({ status: 400, error: 'invalid_response_format' });
    expect(await post({ model: server.model, messages: [], response_format: { type: 'json_object' } })).to.deep.equal({ status: 400, error: 'invalid_messages' });
    const badName = { type: 'json_schema', json_schema: { name: 'has spaces', schema: { type: 'object' } } };
    expect(await post({ model: server.model, messages, response_format: badName })).to.deep.equal({ status: 400, error: 'invalid_response_format' });
    expect((await post({ model: server.model, messages, response_format: { type: 'json_object' } })).status).to.equal(200);
  });
});

describe('structured/prompt limits', () => {
  it('accepts prompts up to the limit, counting characters rather than UTF-16 units', () => {
    expect(() => validateExtractionPrompt('a'.repeat(2000), 'extract')).not.to.throw();
    expect(() => validateExtractionPrompt('😀'.repeat(2000), 'extract')).not.to.throw();
    expect(() => validateExtractionPrompt('a'.repeat(4000), 'scrape')).not.to.throw();
    expect(() => validateExtractionPrompt('a'.repeat(4001), 'scrape')).to.throw(TrawlError).with.property('httpStatus', 400);
  });

  it('refuses blank prompts and non-strings', () => {
    expect(() => validateExtractionPrompt('   ', 'extract')).to.throw(TrawlError).with.property('code', 'VALIDATION_ERROR');
    expect(() => validateExtractionPrompt(42, 'scrape')).to.throw(TrawlError).with.property('code', 'VALIDATION_ERROR');
  });
});
