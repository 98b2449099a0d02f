import type { JsonObject } from '@bufbuild/protobuf';
import type { TrawlConfig } from '../../common/config.js';
import type { PipelineOptions } from '../../proto/gen/trawl/v1/work_pb.js';
import { completeWithLlm, type PipelineInput } from './index.js';
import type { LlmConfig } from './llm-step.js';
import { createPipelinePool } from './pipeline-pool.js';
import type { ThreadTask } from './pipeline-thread.js';
import { toStoredResult } from './stored-result.js';
import type { ExtractedPage } from '../discovery/link-extractor.js';
import { unpackPage } from '../discovery/packed-links.js';

export interface ContentPipelineOptions {
  /** Threads converting documents at once; 0 or absent: one per CPU. */
  threads?: number;
  /** Longest one document may take on its thread. */
  budgetMs: number;
  llm: LlmConfig;
}

export interface ContentPipeline {
  /**
   * A document through every requested output into the serialized result
   * body. The CPU part runs on a thread within the time budget (shortened to
   * `deadlineMs`); an extraction_prompt is then asked on the event loop,
   * under the LLM's own timeout. Throws a TrawlError with the public code.
   */
  process(document: ThreadTask, opts: { deadlineMs: number }): Promise<Uint8Array>;
  /**
   * As `process`, also answering the page's links when the input asks for
   * them (`links: true`) and the document is an HTML page (else null): read
   * in the conversion's own parse, resolved against the input's URL.
   */
  processPage(document: ThreadTask, opts: { deadlineMs: number }): Promise<{ result: Uint8Array; links: ExtractedPage | null }>;
  close(): Promise<void>;
}

/** The options of a task's pipeline message, as pipeline input. */
export function pipelineInput(options: PipelineOptions | undefined): Pick<
  PipelineInput,
  'formats' | 'onlyMainContent' | 'removeCookieBanners' | 'extractionSchema' | 'extractionProfile' | 'extractionPrompt' | 'evidence' | 'rag'
> {
  return {
    formats: options?.formats ?? [],
    onlyMainContent: options?.onlyMainContent ?? false,
    removeCookieBanners: options?.removeCookieBanners ?? false,
    extractionSchema: options?.extractionSchema as JsonObject | undefined,
    extractionProfile: options?.extractionProfile,
    extractionPrompt: options?.extractionPrompt,
    evidence: options?.evidence ?? false,
    rag: { chunkSize: options?.ragChunkSize, overlap: options?.ragOverlap },
  };
}

/** Bytes whose buffer is theirs alone, as moving a buffer to a thread detaches all of it. */
function ownBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

/**
 * The content pipeline with the worker settings of the configuration
 * (TRAWL_PIPELINE_THREADS, TRAWL_PIPELINE_BUDGET_MS, TRAWL_LLM_*); a pool
 * with a budget of its own (the document pool) passes it.
 */
export function contentPipelineFromConfig(config: TrawlConfig, budgetMs = config.worker.pipelineBudgetMs): ContentPipeline {
  return createContentPipeline({ threads: config.worker.pipelineThreads, budgetMs, llm: config.llm });
}

/** The content pipeline of a worker process: created by the pools that process documents, closed when they stop. */
export function createContentPipeline(options: ContentPipelineOptions): ContentPipeline {
  const pool = createPipelinePool({ ...(options.threads ? { threads: options.threads } : {}), budgetMs: options.budgetMs });
  async function processPage(document: ThreadTask, opts: { deadlineMs: number }): Promise<{ result: Uint8Array; links: ExtractedPage | null }> {
    const done = await pool.run({ ...document, bytes: ownBytes(document.bytes) }, opts);
    if (done.kind === 'result') return { result: done.result, links: done.links ? unpackPage(done.links) : null };
    const output = await completeWithLlm(done.processed, document.input.formats, options.llm);
    return { result: toStoredResult(output, document.source, done.document), links: done.processed.links ?? null };
  }
  return {
    processPage,
    process: async (document, opts) => (await processPage(document, opts)).result,
    close: () => pool.close(),
  };
}
