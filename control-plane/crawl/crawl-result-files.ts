import { presentCrawlPage } from '../../common/crawl-page-json.js';
import type { CrawlPage } from '../../proto/gen/trawl/v1/crawl_pb.js';

/** How a result file holds its pages: one JSON object per line, or one JSON array. */
export type ResultFormat = 'jsonl' | 'json';

export const RESULT_CONTENT_TYPES: Record<ResultFormat, string> = { jsonl: 'application/x-ndjson', json: 'application/json' };

/** The object name of a crawl's part: `<prefix><crawl_id>/results-00001.jsonl`, numbered so the files list in order. */
export function resultObjectKey(prefix: string, crawlId: string, part: number, format: ResultFormat): string {
  const base = prefix === '' ? '' : `${prefix.replace(/\/+$/, '')}/`;
  return `${base}${crawlId}/results-${String(part).padStart(5, '0')}.${format}`;
}

/** A part's file: each page as the status route's `results` gives it. */
export function renderResultFile(pages: readonly CrawlPage[], format: ResultFormat): Buffer {
  const objects = pages.map(presentCrawlPage);
  if (format === 'json') return Buffer.from(JSON.stringify(objects));
  return Buffer.from(objects.map((o) => `${JSON.stringify(o)}\n`).join(''));
}
