import { expect } from 'chai';
import { createGuardedHttpsAgent, type ResolveAll } from '../../../common/ssrf-guard.js';
import { outputFileWriter, prepareOutput } from '../../../control-plane/crawl/crawl-output.js';

const MASTER = 'cd'.repeat(32);
const endpoints = { s3Endpoint: '', s3ForcePathStyle: false, gcsEndpoint: '', gcsTokenUrl: 'https://oauth2.googleapis.com/token' };

describe('crawl output to the caller\'s S3 bucket', () => {
  it('reaches AWS for the caller\'s bucket and region only through the SSRF guard', async () => {
    const resolved: string[] = [];
    // The bucket's AWS host name resolving to the cloud metadata address: the guard must refuse the connection.
    const resolve: ResolveAll = async (host) => {
      resolved.push(host);
      return [{ address: '169.254.169.254', family: 4 }];
    };
    const prepared = prepareOutput({ type: 's3', bucket: 'victim-bucket', region: 'eu-west-1', credentials: { access_key_id: 'AK', secret_access_key: 'SK' } }, MASTER)!;
    const write = outputFileWriter(prepared.kept, prepared.sealed, { endpoints, masterKeyHex: MASTER, guardedAgent: createGuardedHttpsAgent({ allowPrivate: false }, { resolve }) });
    const err = await write('c1/results-00001.jsonl', Buffer.from('{}\n')).then(() => null, (e: unknown) => e as Error);
    expect(err, 'the write must fail').to.not.equal(null);
    expect(String(err!.message)).to.match(/not allowed|not a public/);
    expect(resolved[0]).to.equal('victim-bucket.s3.eu-west-1.amazonaws.com');
  });
});
