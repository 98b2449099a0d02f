import { contentPipelineFromConfig } from '../pipeline/content-pipeline.js';
import { runWorker } from '../runtime/run-worker.js';
import { createExtractWork } from './handler.js';

await runWorker('extract', ({ config, redis }) => {
  const pipeline = contentPipelineFromConfig(config);
  return {
    work: createExtractWork({ readInput: (key) => redis.getBuffer(key), pipeline }),
    close: () => pipeline.close(),
  };
});
