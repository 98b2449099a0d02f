import { createContentPipeline } from '../pipeline/content-pipeline.js';
import { runWorker } from '../runtime/run-worker.js';
import { createExtractWork } from './handler.js';

await runWorker('extract', ({ config, redis }) => {
  const pipeline = createContentPipeline({ threads: config.worker.pipelineThreads, budgetMs: config.worker.pipelineBudgetMs, llm: config.llm });
  return {
    work: createExtractWork({ readInput: (key) => redis.getBuffer(key), pipeline }),
    close: () => pipeline.close(),
  };
});
