import { runWorker } from '../runtime/run-worker.js';
import { createExtractHandler } from './handler.js';

await runWorker('extract', ({ config, log, redis, attempts }) => createExtractHandler({ attempts, redis, pipeline: { llm: config.llm }, log }));
