import { expect } from 'chai';
import type { CrawlConfig } from '../../../common/crawl-config.js';
import { loadConfig } from '../../../common/config.js';
import { TrawlError } from '../../../common/errors.js';
import { prepareDelivery } from '../../../control-plane/crawl/crawl-delivery-request.js';
import { createCrawlStorage } from '../../../control-plane/crawl/crawl-storage.js';
import { openSecret } from '../../../control-plane/events/signing.js';

const MASTER = 'ab'.repeat(32);
const s3Only = loadConfig({
  TRAWL_CRAWL_STORAGE_S3_BUCKET: 'results',
  TRAWL_CRAWL_STORAGE_S3_ACCESS_KEY_ID: 'AK',
  TRAWL_CRAWL_STORAGE_S3_SECRET_ACCESS_KEY: 'SK',
}).crawlStorage;
const settings = { storage: createCrawlStorage(s3Only), masterKeyHex: MASTER };
const config = (extra: Partial<CrawlConfig>) => ({ url: 'https://example.com/', storage: 'redis', output: null, ...extra }) as unknown as CrawlConfig;

describe('crawl delivery request: storage and output checked and sealed before a crawl is charged', () => {
  it('answers STORAGE_NOT_CONFIGURED (400) for a storage type the operator has no bucket for, and accepts a configured one', () => {
    const err = (() => {
      try {
        prepareDelivery(config({ storage: 'r2' }), settings);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).to.be.instanceOf(TrawlError);
    expect((err as TrawlError).code).to.equal('STORAGE_NOT_CONFIGURED');
    expect((err as TrawlError).httpStatus).to.equal(400);
    expect(prepareDelivery(config({ storage: 's3' }), settings).sealed).to.equal(null);
  });

  it('keeps the access key id in the config and seals the secret key apart', () => {
    const out = prepareDelivery(
      config({ output: { type: 's3', bucket: 'mine', credentials: { access_key_id: 'AKIA1', secret_access_key: 'very-secret' } } }),
      settings,
    );
    expect(out.config.output).to.deep.equal({ type: 's3', bucket: 'mine', credentials: { access_key_id: 'AKIA1' } });
    expect(JSON.stringify(out.config)).not.to.include('very-secret');
    expect(JSON.parse(openSecret(out.sealed!, MASTER))).to.deep.equal({ secret_access_key: 'very-secret' });
  });

  it('refuses a GCS key that is not a service account key with VALIDATION_ERROR', () => {
    expect(() => prepareDelivery(config({ output: { type: 'gcs', bucket: 'mine', credentials: { service_account_json: '{"client_email":"a@b"}' } } }), settings))
      .to.throw(TrawlError, /service account key/);
  });

  it('records whether a webhook_stream is signed without keeping the secret in the config', () => {
    const out = prepareDelivery(config({ output: { type: 'webhook_stream', url: 'https://hooks.example.com/', signing: { secret: 'sixteen-chars-secret' } } }), settings);
    expect(out.config.output).to.deep.equal({ type: 'webhook_stream', url: 'https://hooks.example.com/', signed: true });
    expect(JSON.parse(openSecret(out.sealed!, MASTER))).to.deep.equal({ signing_secret: 'sixteen-chars-secret' });
  });
});
