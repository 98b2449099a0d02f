import type { DocumentCapabilities } from '../../common/document-capabilities.js';
import { DOCUMENT_POOL } from '../../common/tiers.js';
import { baseFetchConfig, runFetchTier, undiciPageFetcher } from '../fetching/fetch-tier-worker.js';
import { createGuardedDispatcher } from '../../common/ssrf-guard.js';
import { createTesseract } from './ocr.js';

/**
 * The document pool: modes pdf and ocr (and advanced.ocr). It fetches like
 * tier 1 and reads PDFs (pdf.js, on the pipeline's threads) and images
 * (Tesseract) within the document budget of SPEC 8.4 instead of the page
 * budget, so long documents never hold the page pools.
 */
await runFetchTier(DOCUMENT_POOL, { detectShells: false }, async ({ config, log }) => {
  const fetchConfig = { ...baseFetchConfig(config), dispatcher: createGuardedDispatcher(config.ssrf) };
  const engine = createTesseract();
  // Announced with the heartbeats for GET /api/v1/health/ocr; a worker without Tesseract still reads PDFs.
  const capabilities: DocumentCapabilities = await Promise.all([engine.version(), engine.languages()])
    .then(([version, languages]) => ({ ocr_engine: version, ocr_languages: languages }))
    .catch((err: unknown) => {
      log.warn({ err }, 'OCR is unavailable on this worker; images will fail with SERVICE_UNAVAILABLE');
      return { ocr_engine: '', ocr_languages: [] };
    });
  return {
    fetch: undiciPageFetcher(fetchConfig),
    pipelineBudgetMs: config.worker.documentBudgetMs,
    ocr: { engine, budgetMs: config.worker.documentBudgetMs },
    capabilities: { ...capabilities },
  };
});
