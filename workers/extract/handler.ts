import { pipelineInput, type ContentPipeline } from '../pipeline/content-pipeline.js';
import { AttemptFailure } from '../runtime/attempt-failure.js';
import type { AttemptWork } from '../runtime/attempt.js';

export interface ExtractWorkDeps {
  /** The caller's content, as stored by the gateway. */
  readInput(key: string): Promise<Buffer | null>;
  pipeline: ContentPipeline;
}

/** The content pipeline on caller-supplied content; source_url is context only and never fetched. */
export function createExtractWork(deps: ExtractWorkDeps): AttemptWork<'extract', Buffer> {
  return {
    payload: 'extract',
    processFailureCode: 'EXTRACTION_FAILED',

    async acquire(task) {
      // Read in the same round trip as the attempt's finished check; nothing is done with it before that answers.
      const content = await deps.readInput(task.inputKey);
      if (content === null) throw new AttemptFailure('INTERNAL_ERROR', 'The supplied content is no longer available');
      return { input: content, report: { bytes: BigInt(content.length) } };
    },

    process(task, content, scope) {
      return deps.pipeline.process(
        {
          bytes: content,
          charset: 'utf-8',
          input: {
            ...pipelineInput(task.pipeline),
            onlyMainContent: true,
            contentType: task.contentType || 'html',
            url: task.sourceUrl,
            endpoint: 'extract',
            jsonIsFiltered: true,
          },
          source: {
            url: task.sourceUrl,
            finalUrl: task.sourceUrl,
            statusCode: 0,
            headers: {},
            processingStartedAtMs: Date.now(),
            sizeBytes: content.length,
            includeRawHtml: false,
            contentAsFormats: true,
          },
        },
        { deadlineMs: scope.deadlineMs },
      );
    },
  };
}
