import type https from 'node:https';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ObjectStoreConfig, TrawlConfig } from '../../common/config.js';
import { TrawlError } from '../../common/errors.js';
import { CRAWL_STORAGE_RETENTION_DAYS, PRESIGNED_URL_MAX_SECONDS } from '../../common/limits.js';
import { RESULT_CONTENT_TYPES, type ResultFormat } from './crawl-result-files.js';

/** The storage types that write to a bucket of Trawl's. */
export type BucketStorage = 's3' | 'r2';

/** An S3-protocol request takes at most this long; a part that times out is tried again. */
const S3_REQUEST_TIMEOUT_MS = 60_000;

export interface S3Target {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /** Connections through the SSRF guard, for an endpoint a caller has a say in. */
  httpsAgent?: https.Agent;
}

/** One S3 client per bucket's settings; retries are the delivery's own (parts are tried again), not the SDK's. */
export function s3Client(t: S3Target): S3Client {
  return new S3Client({
    region: t.region,
    ...(t.endpoint ? { endpoint: t.endpoint } : {}),
    forcePathStyle: t.forcePathStyle,
    credentials: { accessKeyId: t.accessKeyId, secretAccessKey: t.secretAccessKey },
    maxAttempts: 1,
    requestHandler: { requestTimeout: S3_REQUEST_TIMEOUT_MS, ...(t.httpsAgent ? { httpsAgent: t.httpsAgent } : {}) },
  });
}

/** Writes one object, with its content type and, for Trawl's bucket, its retention. */
export async function putObject(client: S3Client, bucket: string, key: string, body: Buffer, format: ResultFormat, expiresAt?: Date): Promise<void> {
  await client.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: body,
      ContentType: RESULT_CONTENT_TYPES[format],
      ...(expiresAt ? { Expires: expiresAt, Tagging: `trawl-retention-days=${CRAWL_STORAGE_RETENTION_DAYS}` } : {}),
    }),
  );
}

/** Trawl's own buckets for crawl results (storage s3 and r2): writing a part, and a download URL for it. */
export interface CrawlStorage {
  configured(type: BucketStorage): boolean;
  write(type: BucketStorage, key: string, body: Buffer, expiresAt: Date): Promise<void>;
  /** A presigned GET URL valid until `until` (at most PRESIGNED_URL_MAX_SECONDS from now). */
  downloadUrl(type: BucketStorage, key: string, until: Date): Promise<string>;
}

/** When an object written now leaves Trawl's bucket. */
export function retentionEnd(now: Date): Date {
  return new Date(now.getTime() + CRAWL_STORAGE_RETENTION_DAYS * 24 * 3600 * 1000);
}

export function createCrawlStorage(settings: TrawlConfig['crawlStorage']): CrawlStorage {
  const clients = new Map<BucketStorage, { client: S3Client; bucket: string }>();
  const entry = (type: BucketStorage) => {
    const store: ObjectStoreConfig | null = settings[type];
    if (!store) throw new TrawlError('STORAGE_NOT_CONFIGURED', `storage ${type} is not configured on this server`);
    let found = clients.get(type);
    if (!found) {
      found = { client: s3Client(store), bucket: store.bucket };
      clients.set(type, found);
    }
    return found;
  };
  return {
    configured: (type) => settings[type] !== null,
    async write(type, key, body, expiresAt) {
      const { client, bucket } = entry(type);
      await putObject(client, bucket, key, body, 'jsonl', expiresAt);
    },
    async downloadUrl(type, key, until) {
      const { client, bucket } = entry(type);
      const seconds = Math.max(1, Math.min(PRESIGNED_URL_MAX_SECONDS, Math.floor((until.getTime() - Date.now()) / 1000)));
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: seconds });
    },
  };
}
