import { createClient, type Client } from '@connectrpc/connect';
import { BillingService } from '../proto/gen/trawl/v1/account_billing_pb.js';
import { AccountService } from '../proto/gen/trawl/v1/accounts_pb.js';
import { ApiKeyService } from '../proto/gen/trawl/v1/api_keys_pb.js';
import { ArtifactService } from '../proto/gen/trawl/v1/artifacts_pb.js';
import { CrawlService } from '../proto/gen/trawl/v1/crawl_pb.js';
import { ExtractService } from '../proto/gen/trawl/v1/extract_pb.js';
import { HealthService } from '../proto/gen/trawl/v1/health_pb.js';
import { MapService } from '../proto/gen/trawl/v1/map_pb.js';
import { WebhookService } from '../proto/gen/trawl/v1/webhooks_pb.js';
import { OAuthService } from '../proto/gen/trawl/v1/oauth_pb.js';
import { GetJobResponseWireSchema, ScrapeService } from '../proto/gen/trawl/v1/scrape_pb.js';
import { SessionService } from '../proto/gen/trawl/v1/sessions_pb.js';
import { createControlPlaneTransport } from './control-plane-transport.js';

export interface ControlPlane {
  scrape: Client<typeof ScrapeService>;
  health: Client<typeof HealthService>;
  extract: Client<typeof ExtractService>;
  map: Client<typeof MapService>;
  crawl: Client<typeof CrawlService>;
  accounts: Client<typeof AccountService>;
  webhooks: Client<typeof WebhookService>;
  billing: Client<typeof BillingService>;
  oauth: Client<typeof OAuthService>;
  apiKeys: Client<typeof ApiKeyService>;
  sessions: Client<typeof SessionService>;
  artifacts: Client<typeof ArtifactService>;
  /** ScrapeService's GetJob with the job left in wire form (GetJobResponseWire), for a caller that renders it itself. */
  scrapeWire: Client<typeof ScrapeServiceWire>;
}

/** GetJob, its answer read as GetJobResponseWire: the same call and the same bytes on the wire. */
const GET_JOB_WIRE = { ...ScrapeService.method.getJob, output: GetJobResponseWireSchema };
const ScrapeServiceWire = { ...ScrapeService, methods: [GET_JOB_WIRE], method: { getJob: GET_JOB_WIRE } };

/**
 * One HTTP/2 session to the control plane, multiplexing every call, in the
 * Connect protocol with binary protobuf: a unary call is one request and one
 * response body, without gRPC's message envelopes and trailers, which halves
 * the per-call cost on both sides (the control plane still answers gRPC and
 * gRPC-Web on the same port for other clients). Nothing is compressed either
 * way: the control plane sits on the same network, where compressing costs
 * more CPU than it saves in bytes. Unary calls go through the gateway's own
 * lean transport (control-plane-transport.ts).
 */
export function createControlPlaneClient(baseUrl: string): ControlPlane {
  const transport = createControlPlaneTransport(baseUrl);
  return {
    scrape: createClient(ScrapeService, transport),
    health: createClient(HealthService, transport),
    extract: createClient(ExtractService, transport),
    map: createClient(MapService, transport),
    crawl: createClient(CrawlService, transport),
    accounts: createClient(AccountService, transport),
    webhooks: createClient(WebhookService, transport),
    billing: createClient(BillingService, transport),
    oauth: createClient(OAuthService, transport),
    apiKeys: createClient(ApiKeyService, transport),
    sessions: createClient(SessionService, transport),
    artifacts: createClient(ArtifactService, transport),
    scrapeWire: createClient(ScrapeServiceWire, transport),
  };
}
