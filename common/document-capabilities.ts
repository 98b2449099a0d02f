/**
 * What a document-pool worker announces with its heartbeats, so the control
 * plane can tell whether images can be read and in which languages
 * (GET /api/v1/health/ocr). An empty engine means OCR failed to start.
 */
export interface DocumentCapabilities {
  ocr_engine: string;
  ocr_languages: string[];
}

/** The document capabilities in a heartbeat's announcement, or null when it carries none. */
export function readDocumentCapabilities(announced: Record<string, unknown>): DocumentCapabilities | null {
  const { ocr_engine: engine, ocr_languages: languages } = announced;
  if (typeof engine !== 'string' || !Array.isArray(languages)) return null;
  return { ocr_engine: engine, ocr_languages: languages.filter((l): l is string => typeof l === 'string') };
}
