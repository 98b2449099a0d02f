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

/**
 * One HTTP/2 session to the control plane, multiplexing every call. Nothing
 * is compressed either way: the control plane sits on the same network, where
 * compressing costs more CPU than it saves in bytes.
 */
export function createControlPlaneClient(baseUrl: string): ControlPlane {
  const transport = createGrpcTransport({ baseUrl, acceptCompression: [], sendCompression: undefined });
  return {
    scrape: createClient(ScrapeService, transport),
    health: createClient(HealthService, transport),
    extract: createClient(ExtractService, transport),
  };
}
