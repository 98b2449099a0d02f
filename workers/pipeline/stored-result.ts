import { create, fromJson, toBinary } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { ScrapeResultSchema } from '../../proto/gen/trawl/v1/scrape_pb.js';
import type { PipelineOutput } from './index.js';
import { toSafeJson } from './safe-json.js';
import { wholeText, type DocumentText } from '../html/document-text.js';

/** What a stored result says about where its document came from. */
export interface ResultSource {
  url: string;
  finalUrl: string;
  statusCode: number;
  headers: Record<string, string>;
  sizeBytes: number;
  /** How long the response took; without it, the time since processingStartedAtMs (what the extract endpoint reports). */
  responseTimeMs?: number;
  processingStartedAtMs?: number;
  /** The decoded document goes into the result as raw_html. */
  includeRawHtml: boolean;
  /** The content field holds every format by name even when one text format was asked for (the extract endpoint). */
  contentAsFormats: boolean;
  screenshotUrl?: string | undefined;
  pdfUrl?: string | undefined;
}

/** The pipeline's output as the serialized result body kept in Redis. */
export function toStoredResult(output: PipelineOutput, source: ResultSource, document: DocumentText): Uint8Array {
  const result = create(ScrapeResultSchema, {
    url: source.url,
    finalUrl: source.finalUrl,
    statusCode: source.statusCode,
    // Pipeline values can hold numbers JSON cannot write back (a JSON-LD "price": 1e999 parses to Infinity).
    content: fromJson(ValueSchema, toSafeJson(source.contentAsFormats ? output.formats : output.content)),
    title: output.title,
    metadata: toSafeJson(output.metadata),
    headers: source.headers,
    cached: false,
    responseTimeMs: BigInt(source.responseTimeMs ?? Date.now() - (source.processingStartedAtMs ?? Date.now())),
    sizeBytes: BigInt(source.sizeBytes),
    filteredContent: toSafeJson(output.filteredContent),
    evidence: toSafeJson(output.evidence),
    extractionMethod: output.extractionMethod,
    rawHtml: source.includeRawHtml ? wholeText(document) : undefined,
    modelUsed: output.modelUsed,
    screenshotUrl: source.screenshotUrl,
    pdfUrl: source.pdfUrl,
  });
  return toBinary(ScrapeResultSchema, result);
}
