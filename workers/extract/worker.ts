import { runWorker } from '../runtime/run-worker.js';
import { createExtractHandler } from './handler.js';

await runWorker('extract', ({ config, log, redis, attempts, pipeline }) =>
  createExtractHandler({ attempts, redis, pipeline: { llm: config.llm }, pipelinePool: pipeline, log }),
);
