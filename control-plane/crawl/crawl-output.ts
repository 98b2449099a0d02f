import type https from 'node:https';
import { Storage } from '@google-cloud/storage';
import type { TrawlConfig } from '../../common/config.js';
import { TrawlError } from '../../common/errors.js';
import { CRAWL_OUTPUT_EVENT } from '../../common/event-types.js';
import type { CrawlPage } from '../../proto/gen/trawl/v1/crawl_pb.js';
import { presentCrawlPage } from '../../common/crawl-page-json.js';
import { recordEvent } from '../events/record-event.js';
import { openSecret, sealSecret } from '../events/signing.js';
import type { Db } from '../jobs/job-store.js';
import { putObject, s3Client } from './crawl-storage.js';
import { RESULT_CONTENT_TYPES, type ResultFormat } from './crawl-result-files.js';
import { tokenUrlTransport } from './gcs-token-transport.js';

/** A crawl's `output` as kept in its config: the credentials are sealed apart (crawls.output_secret_sealed), never echoed. */
export type CrawlOutput =
  | { type: 's3'; bucket: string; prefix?: string; region?: string; format?: ResultFormat; credentials: { access_key_id: string } }
  | { type: 'gcs'; bucket: string; prefix?: string; credentials: { client_email: string } }
  | { type: 'webhook_stream'; url: string; signed: boolean };

/** The output's secret part. */
type OutputSecret = { secret_access_key: string } | { service_account_json: string } | { signing_secret: string | null };

type OutputRequest =
  | { type: 's3'; bucket: string; prefix?: string; region?: string; format?: ResultFormat; credentials: { access_key_id: string; secret_access_key: string } }
  | { type: 'gcs'; bucket: string; prefix?: string; credentials: { service_account_json: string } }
  | { type: 'webhook_stream'; url: string; signing?: { secret: string } };

/** The fields of a service account key Trawl uses. */
interface ServiceAccount {
  client_email: string;
  private_key: string;
  project_id?: string;
}

const OUTPUT_TIMEOUT_MS = 60_000;
const AWS_DEFAULT_REGION = 'us-east-1';

function serviceAccount(json: string): ServiceAccount {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    parsed = null;
  }
  const sa = parsed as Partial<ServiceAccount> | null;
  if (!sa || typeof sa.client_email !== 'string' || typeof sa.private_key !== 'string' || !sa.private_key.includes('PRIVATE KEY')) {
    throw new TrawlError('VALIDATION_ERROR', 'output.credentials.service_account_json must be a service account key (JSON with client_email and private_key)', {
      field: 'output.credentials.service_account_json',
    });
  }
  return { client_email: sa.client_email, private_key: sa.private_key, ...(typeof sa.project_id === 'string' ? { project_id: sa.project_id } : {}) };
}

/**
 * Splits a requested output into what the crawl's config keeps (and its
 * status echoes) and its secret, sealed under the master key. A service
 * account key that is not one answers 400 before anything is charged.
 */
export function prepareOutput(output: unknown, masterKeyHex: string): { kept: CrawlOutput; sealed: Buffer } | null {
  if (!output) return null;
  const o = output as OutputRequest;
  const seal = (secret: OutputSecret) => sealSecret(JSON.stringify(secret), masterKeyHex);
  switch (o.type) {
    case 's3': {
      const { credentials, ...rest } = o;
      return { kept: { ...rest, credentials: { access_key_id: credentials.access_key_id } }, sealed: seal({ secret_access_key: credentials.secret_access_key }) };
    }
    case 'gcs': {
      const sa = serviceAccount(o.credentials.service_account_json);
      const { credentials, ...rest } = o;
      return { kept: { ...rest, credentials: { client_email: sa.client_email } }, sealed: seal({ service_account_json: credentials.service_account_json }) };
    }
    case 'webhook_stream':
      return { kept: { type: 'webhook_stream', url: o.url, signed: Boolean(o.signing) }, sealed: seal({ signing_secret: o.signing?.secret ?? null }) };
  }
}

export interface OutputSettings {
  endpoints: TrawlConfig['crawlOutput'];
  masterKeyHex: string;
  /** Connections to AWS for the caller's region and bucket pass the SSRF guard. */
  guardedAgent: https.Agent;
}

/** Where an output's files go: the bucket and object names, for the status. */
export function outputDestination(output: CrawlOutput): string {
  if (output.type === 'webhook_stream') return output.url;
  return `${output.type === 's3' ? 's3' : 'gs'}://${output.bucket}/${output.prefix ?? ''}`;
}

export function outputFormat(output: CrawlOutput): ResultFormat {
  return output.type === 's3' ? (output.format ?? 'jsonl') : 'jsonl';
}

/** Writes one part file to the caller's bucket with the caller's credentials. */
export type OutputFileWriter = (key: string, body: Buffer) => Promise<void>;

export function outputFileWriter(output: CrawlOutput, sealed: Buffer, settings: OutputSettings): OutputFileWriter {
  const secret = JSON.parse(openSecret(sealed, settings.masterKeyHex)) as OutputSecret;
  if (output.type === 's3' && 'secret_access_key' in secret) {
    const endpoint = settings.endpoints.s3Endpoint;
    const client = s3Client({
      endpoint,
      region: output.region ?? AWS_DEFAULT_REGION,
      accessKeyId: output.credentials.access_key_id,
      secretAccessKey: secret.secret_access_key,
      forcePathStyle: endpoint !== '' && settings.endpoints.s3ForcePathStyle,
      // The operator's endpoint is trusted; AWS's is reached at a host the caller's bucket and region name.
      ...(endpoint === '' ? { httpsAgent: settings.guardedAgent } : {}),
    });
    const format = outputFormat(output);
    return (key, body) => putObject(client, output.bucket, key, body, format);
  }
  if (output.type === 'gcs' && 'service_account_json' in secret) {
    const sa = serviceAccount(secret.service_account_json);
    const endpoint = settings.endpoints.gcsEndpoint;
    const storage = new Storage({
      ...(endpoint ? { apiEndpoint: endpoint, useAuthWithCustomEndpoint: true } : {}),
      ...(sa.project_id ? { projectId: sa.project_id } : {}),
      credentials: { client_email: sa.client_email, private_key: sa.private_key },
      clientOptions: { transporter: tokenUrlTransport(settings.endpoints.gcsTokenUrl, OUTPUT_TIMEOUT_MS) } as never,
      retryOptions: { autoRetry: false },
      timeout: OUTPUT_TIMEOUT_MS,
    });
    const bucket = storage.bucket(output.bucket);
    return (key, body) => bucket.file(key).save(body, { resumable: false, validation: false, contentType: RESULT_CONTENT_TYPES.jsonl });
  }
  throw new Error(`output ${output.type} writes no files`);
}

/**
 * Streams pages to a webhook_stream URL through the webhook delivery path:
 * one crawl.page.result event per page, recorded in the transaction that
 * assigns the pages (so each is sent once), with the URL as its per-request
 * target. The webhooks pool sends it through the SSRF guard, retries it by
 * the delivery rules, and signs it with the output's secret when it has one.
 */
export async function streamPages(db: Db, crawl: { id: string; account_id: string }, output: CrawlOutput, sealed: Buffer, masterKeyHex: string, pages: readonly CrawlPage[]): Promise<void> {
  if (output.type !== 'webhook_stream') throw new Error('only webhook_stream streams pages');
  const secret = JSON.parse(openSecret(sealed, masterKeyHex)) as { signing_secret: string | null };
  const target = { url: output.url, events: [CRAWL_OUTPUT_EVENT], ...(secret.signing_secret ? { secret: secret.signing_secret } : {}) };
  for (const page of pages) {
    await recordEvent(db, { accountId: crawl.account_id, type: CRAWL_OUTPUT_EVENT, payload: { crawl_id: crawl.id, ...presentCrawlPage(page) }, requestWebhook: target });
  }
}
