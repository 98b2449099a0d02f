import type { CrawlConfig } from '../../common/crawl-config.js';
import { TrawlError } from '../../common/errors.js';
import { prepareOutput } from './crawl-output.js';
import type { CrawlStorage } from './crawl-storage.js';

export interface DeliverySettings {
  storage: CrawlStorage;
  masterKeyHex: string;
}

/**
 * Checks a new crawl's `storage` and `output` before anything is charged:
 * storage s3 or r2 needs the operator's bucket (400 STORAGE_NOT_CONFIGURED
 * otherwise), an output's credentials are sealed apart from the config the
 * crawl keeps and echoes.
 */
export function prepareDelivery(config: CrawlConfig, settings: DeliverySettings): { config: CrawlConfig; sealed: Buffer | null } {
  if (config.storage !== 'redis' && !settings.storage.configured(config.storage)) {
    throw new TrawlError('STORAGE_NOT_CONFIGURED', `storage ${config.storage} is not available on this server: the operator has configured no ${config.storage} bucket for crawl results`, {
      field: 'storage',
    });
  }
  const output = prepareOutput(config.output, settings.masterKeyHex);
  if (!output) return { config, sealed: null };
  return { config: { ...config, output: output.kept as unknown as Record<string, unknown> }, sealed: output.sealed };
}
