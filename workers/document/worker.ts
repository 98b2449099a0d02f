import type { DocumentCapabilities } from '../../common/document-capabilities.js';
import { DOCUMENT_POOL } from '../../common/tiers.js';
import { createFetchWork } from '../fetch-t1/handler.js';
import { pageFetchDeps } from '../fetch-t1/page-fetch-deps.js';
import { createContentPipeline } from '../pipeline/content-pipeline.js';
import { runWorker } from '../runtime/run-worker.js';
import { createTesseract } from './ocr.js';

/**
 * The document pool: modes pdf and ocr (and advanced.ocr). It fetches like
 * tier 1 and reads PDFs (pdf.js, on the pipeline's threads) and images
 * (Tesseract) within the document budget of SPEC 8.4 instead of the page
 * budget, so long documents never hold the page pools.
 */
await runWorker(DOCUMENT_POOL, async (ctx) => {
  const { config, log } = ctx;
  const engine = createTesseract();
  // Announced with the heartbeats for GET /api/v1/health/ocr; a worker without Tesseract still reads PDFs.
  const capabilities: DocumentCapabilities = await Promise.all([engine.version(), engine.languages()])
    .then(([version, languages]) => ({ ocr_engine: version, ocr_languages: languages }))
    .catch((err: unknown) => {
      log.warn({ err }, 'OCR is unavailable on this worker; images will fail with SERVICE_UNAVAILABLE');
      return { ocr_engine: '', ocr_languages: [] };
    });
  const pipeline = createContentPipeline({ threads: config.worker.pipelineThreads, budgetMs: config.worker.documentBudgetMs, llm: config.llm });
  return {
    work: createFetchWork({ ...pageFetchDeps(ctx), pipeline, ocr: { engine, budgetMs: config.worker.documentBudgetMs } }),
    close: () => pipeline.close(),
    capabilities: { ...capabilities },
  };
});
