import { TrawlError } from '../../../common/errors.js';
import { blocksOf, blocksToHtml, linesOfPage, withoutPageFurniture, type Line, type TextRun } from './pdf-layout.js';

/** What pdf.js gives for one text item (only the fields read here). */
interface PdfTextItem {
  str?: string;
  transform?: number[];
  width?: number;
  hasEOL?: boolean;
}

/** pdf.js, loaded on first use: the legacy build is the one that runs on Node without a DOM. */
let pdfjs: Promise<typeof import('pdfjs-dist/legacy/build/pdf.mjs')> | undefined;

export interface PdfDocumentHtml {
  html: string;
  title: string;
  pages: number;
}

/**
 * A PDF's text layer as HTML: headings, paragraphs and tables recovered from
 * the positions and sizes of its text (pdf-layout.ts), running heads and page
 * numbers left out. Scripts, forms and fonts are never evaluated. A file that
 * is not a readable PDF, or one with no text layer (a scan), fails with
 * EXTRACTION_FAILED.
 */
export async function pdfToHtml(bytes: Uint8Array): Promise<PdfDocumentHtml> {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  const lib = await pdfjs;
  let doc;
  try {
    doc = await lib.getDocument({
      data: bytes,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      enableXfa: false,
      stopAtErrors: false,
      verbosity: 0,
    }).promise;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const encrypted = /password/i.test(reason);
    throw new TrawlError('EXTRACTION_FAILED', encrypted ? 'The PDF is protected by a password' : `The document is not a readable PDF: ${reason}`);
  }
  try {
    const lines: Line[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const runs: TextRun[] = [];
      for (const item of content.items as PdfTextItem[]) {
        if (typeof item.str !== 'string' || !item.transform) continue;
        const [a, b, c, d, x, y] = item.transform as [number, number, number, number, number, number];
        runs.push({ text: item.str, x, y, size: Math.hypot(c, d) || Math.hypot(a, b), width: item.width ?? 0, eol: item.hasEOL === true });
      }
      lines.push(...linesOfPage(runs, n));
      page.cleanup();
    }
    const kept = withoutPageFurniture(lines, doc.numPages);
    if (kept.length === 0) {
      throw new TrawlError('EXTRACTION_FAILED', 'The PDF has no text layer (a scanned document); its pages hold only images');
    }
    const blocks = blocksOf(kept);
    const meta = await doc.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as { Title?: unknown };
    const firstHeading = blocks.find((b) => b.kind === 'heading');
    const title = typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : firstHeading?.kind === 'heading' ? firstHeading.text : '';
    return { html: blocksToHtml(blocks, title), title, pages: doc.numPages };
  } finally {
    await doc.destroy();
  }
}
