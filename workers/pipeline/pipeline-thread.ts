import { move, transferableSymbol, valueSymbol } from 'piscina';
import { publicFailure } from '../../common/errors.js';
import { decodeTextPieces } from '../fetching/charset.js';
import { PDF_MIME } from '../fetching/document-types.js';
import { processDocument, type PipelineInput, type ProcessedDocument } from './index.js';
import type { LlmRequest } from './llm-step.js';
import { pdfToHtml } from './pdf/pdf-to-html.js';
import { toStoredResult, type ResultSource } from './stored-result.js';
import type { ExtractedPage } from '../discovery/link-extractor.js';
import { packPage, type PackedPage } from '../discovery/packed-links.js';
import { wholeText, type DocumentText } from '../html/document-text.js';
import { markStarted, type StartCell } from './start-cells.js';
import { useBufferTextEncoding } from '../../common/protobuf-text.js';

useBufferTextEncoding();

/** A document as bytes in a known charset, moved (not copied) to the thread, which decodes it once. */
export interface ThreadTask {
  bytes: Uint8Array;
  charset: string;
  input: Omit<PipelineInput, 'body'>;
  source: ResultSource;
  /** Where the thread writes when it begins on the document, which starts its time budget (pipeline-pool.ts). */
  started?: StartCell;
}

/**
 * What crosses back from a pipeline thread: the serialized result and the
 * page's packed links (both moved, not copied), the output still waiting for
 * the LLM's answer (with the document when the result must carry it), or a
 * failure with its public code.
 */
export type ThreadResult =
  | { kind: 'result'; result: Uint8Array; links?: PackedPage }
  | { kind: 'llm'; processed: ProcessedDocument & { llm: LlmRequest }; document: string }
  | { kind: 'failed'; code: string; message: string; details?: Record<string, unknown> };

/** What piscina moves back: the value, and the buffers it transfers rather than copies (a class: see RenderedPage in content/index.ts). */
class Moved {
  constructor(private readonly value: ThreadResult & { kind: 'result' }) {}

  get [transferableSymbol](): ArrayBufferLike[] {
    const { result, links } = this.value;
    return links ? [result.buffer, links.links.fields.buffer] : [result.buffer];
  }

  get [valueSymbol](): ThreadResult {
    return this.value;
  }
}

function moved(result: Uint8Array, page: ExtractedPage | undefined): ThreadResult {
  const links = page ? packPage(page) : undefined;
  return move(new Moved({ kind: 'result', result, ...(links ? { links } : {}) })) as unknown as ThreadResult;
}

function failed(err: unknown): ThreadResult {
  return { kind: 'failed', ...publicFailure(err, 'EXTRACTION_FAILED', 'The content could not be processed') };
}

function processText(task: ThreadTask, body: DocumentText): ThreadResult {
  const processed = processDocument({ ...task.input, body });
  if (processed.llm) return { kind: 'llm', processed: processed as ProcessedDocument & { llm: LlmRequest }, document: task.source.includeRawHtml ? wholeText(body) : '' };
  return moved(toStoredResult(processed, task.source, body), processed.links);
}

/** A PDF is read into HTML first (whole: a document has no boilerplate to leave out), then processed like a page. */
async function processPdf(task: ThreadTask): Promise<ThreadResult> {
  try {
    const { html } = await pdfToHtml(task.bytes);
    return processText({ ...task, input: { ...task.input, contentType: 'text/html', onlyMainContent: false } }, html);
  } catch (err) {
    return failed(err);
  }
}

/** Runs in a worker thread (see pipeline-pool.ts); errors come back as data so their codes survive the thread boundary. */
export default function runInThread(task: ThreadTask): ThreadResult | Promise<ThreadResult> {
  if (task.started) markStarted(task.started);
  if (task.input.contentType === PDF_MIME) return processPdf(task);
  try {
    // Decoded in pieces, never one large string (document-text.ts).
    return processText(task, decodeTextPieces(task.bytes, task.charset));
  } catch (err) {
    return failed(err);
  }
}

/** Run once when a pool starts: importing this module loads the whole pipeline into the thread. */
export function warmUp(): boolean {
  return true;
}
