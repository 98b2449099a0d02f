import { createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { ExtractService } from '../proto/gen/trawl/v1/extract_pb.js';
import { HealthService } from '../proto/gen/trawl/v1/health_pb.js';
import { ScrapeService } from '../proto/gen/trawl/v1/scrape_pb.js';

export interface ControlPlane {
  scrape: Client<typeof ScrapeService>;
  health: Client<typeof HealthService>;
  extract: Client<typeof ExtractService>;
}

/** One HTTP/2 connection to the control plane, multiplexing every call. */
export function createControlPlaneClient(baseUrl: string): ControlPlane {
  const transport = createGrpcTransport({ baseUrl });
  return {
    scrape: createClient(ScrapeService, transport),
    health: createClient(HealthService, transport),
    extract: createClient(ExtractService, transport),
  };
}
