import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { decodeRequestLogBatch, encodeRequestLogBatch, type RequestLogRecord } from '../../common/request-log-codec.js';
import { RequestLogBatchSchema, RequestLogSchema } from '../../proto/gen/trawl/v1/request_log_pb.js';

function record(overrides: Partial<RequestLogRecord> = {}): RequestLogRecord {
  return {
    requestId: 'req_abc123',
    tsUnixMs: 1_763_900_000_123,
    accountId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    apiKeyId: '',
    method: 'POST',
    route: 'POST /api/v1/scrape',
    path: '/api/v1/scrape',
    status: 200,
    durationMs: 17,
    errorCode: '',
    jobId: 'd1b3f8a0-0000-4000-8000-000000000001',
    targetDomain: 'example.com',
    tier: '3.5',
    creditsMicrocents: 2_500,
    bytesIn: 1_048_576,
    bytesOut: 0,
    userAgent: 'curl/8.5.0',
    clientIp: '127.0.0.1',
    source: 'api',
    ...overrides,
  };
}

const records = [
  record(),
  record({ userAgent: 'Mozilla/5.0 (Ünïcødé; 日本語) 🙂', targetDomain: 'bücher.example', status: 503, errorCode: 'SERVICE_UNAVAILABLE' }),
  record({ tsUnixMs: 2 ** 52, durationMs: 0, creditsMicrocents: -200, status: -1, requestId: '' }),
];

/** The same batch through the generated code's own encoder. */
function reference(list: RequestLogRecord[]): Uint8Array {
  const big = (n: number) => BigInt(n);
  return toBinary(
    RequestLogBatchSchema,
    create(RequestLogBatchSchema, {
      records: list.map((r) =>
        create(RequestLogSchema, {
          ...r,
          tsUnixMs: big(r.tsUnixMs),
          durationMs: big(r.durationMs),
          creditsMicrocents: big(r.creditsMicrocents),
          bytesIn: big(r.bytesIn),
          bytesOut: big(r.bytesOut),
        }),
      ),
    }),
  );
}

describe('request-log batch codec', () => {
  it('writes exactly the bytes the generated encoder writes', () => {
    expect(Buffer.from(encodeRequestLogBatch(records)).equals(Buffer.from(reference(records)))).to.equal(true);
    const decoded = fromBinary(RequestLogBatchSchema, encodeRequestLogBatch(records));
    expect(decoded.records[1]!.userAgent).to.equal('Mozilla/5.0 (Ünïcødé; 日本語) 🙂');
    expect(decoded.records[2]!.creditsMicrocents).to.equal(-200n);
  });

  it('reads back what the generated encoder writes, negative and 53-bit integers included', () => {
    expect(decodeRequestLogBatch(reference(records))).to.deep.equal(records);
  });

  it('skips fields it does not know', () => {
    // Field 99 (varint 7) and field 98 (a string) ahead of a known field, inside a record.
    const unknown = Buffer.from([0x98, 0x06, 0x07, 0x92, 0x06, 0x02, 0x68, 0x69, 0x2a, 0x03, 0x47, 0x45, 0x54]);
    const batch = Buffer.concat([Buffer.from([0x0a, unknown.length]), unknown]);
    const [only] = decodeRequestLogBatch(batch);
    expect(only!.method).to.equal('GET');
    expect(only!.requestId).to.equal('');
  });

  it('refuses a truncated batch', () => {
    const bytes = encodeRequestLogBatch(records);
    expect(() => decodeRequestLogBatch(bytes.subarray(0, bytes.length - 3))).to.throw(/truncated/);
  });

  it('encodes an empty batch as an empty message', () => {
    expect(encodeRequestLogBatch([])).to.have.length(0);
    expect(decodeRequestLogBatch(new Uint8Array())).to.deep.equal([]);
  });
});
