import { contentPipelineFromConfig } from '../pipeline/content-pipeline.js';
import { runWorker } from '../runtime/run-worker.js';
import { createFetchWork } from './handler.js';
import { pageFetchDeps } from './page-fetch-deps.js';

await runWorker('fetch-t1', (ctx) => {
  const pipeline = contentPipelineFromConfig(ctx.config);
  return {
    work: createFetchWork({ ...pageFetchDeps(ctx), pipeline }),
    close: () => pipeline.close(),
  };
});
