import { spawn } from 'node:child_process';
import { TrawlError } from '../../common/errors.js';
import { documentHtml, escapeHtml, joinLines } from '../pipeline/document-html.js';

/** Reads the text in an image. */
export interface OcrEngine {
  /** The image's text, in `languages` (Tesseract codes joined by +); throws a TrawlError with the public code. */
  read(image: Uint8Array, opts: { languages: string; timeoutMs: number }): Promise<string>;
  /** Languages this engine has data for. */
  languages(): Promise<string[]>;
  /** The engine and its version, for the OCR health report. */
  version(): Promise<string>;
}

/** The language read when the request names none. */
export const DEFAULT_OCR_LANGUAGE = 'eng';

/** Most of a failing run's error output kept in the failure message. */
const STDERR_KEPT = 2_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function run(command: string, args: string[], input: Uint8Array | null, timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    // One OpenMP thread per run: the pool's concurrency, not Tesseract, decides how many cores OCR takes.
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
    const out: Buffer[] = [];
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8');
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr, timedOut });
    });
    // A process that exits before reading its input closes the pipe; that is reported by its exit code.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? undefined);
  });
}

/**
 * OCR by the Tesseract command-line program (Debian's tesseract-ocr), one
 * process per image: the image goes in on stdin, the text comes back on
 * stdout, and a run past its time is killed. Languages are checked against
 * the installed data before a run, so a missing one is the caller's error,
 * not a crash.
 */
export function createTesseract(opts: { command?: string } = {}): OcrEngine {
  const command = opts.command ?? 'tesseract';
  let installed: Promise<string[]> | undefined;
  const unavailable = (err: unknown) =>
    new TrawlError('SERVICE_UNAVAILABLE', `OCR is not available on this worker: ${err instanceof Error ? err.message : String(err)}`);

  const engine: OcrEngine = {
    languages() {
      installed ??= run(command, ['--list-langs'], null, 10_000)
        .then((r) => {
          if (r.code !== 0) throw new Error(r.stderr.trim() || `tesseract --list-langs exited with ${r.code}`);
          // The first line names the data directory; the rest are codes ("osd" is orientation data, not a language).
          return (r.stdout + r.stderr)
            .split('\n')
            .slice(1)
            .map((l) => l.trim())
            .filter((l) => /^[a-z]{3}(_[a-z0-9_]+)?$/i.test(l) && l !== 'osd');
        })
        .catch((err: unknown) => {
          installed = undefined;
          throw unavailable(err);
        });
      return installed;
    },

    async version() {
      const r = await run(command, ['--version'], null, 10_000).catch((err: unknown) => {
        throw unavailable(err);
      });
      return (r.stdout + r.stderr).split('\n')[0]!.trim();
    },

    async read(image, { languages, timeoutMs }) {
      const have = await engine.languages();
      const missing = languages.split('+').filter((l) => !have.includes(l));
      if (missing.length > 0) {
        throw new TrawlError('VALIDATION_ERROR', `OCR has no data for ${missing.join(', ')} on this service; installed: ${have.join(', ')}`, {
          fields: [{ field: 'advanced.ocr_language', message: `not installed: ${missing.join(', ')}` }],
        });
      }
      const result = await run(command, ['stdin', 'stdout', '-l', languages], image, timeoutMs).catch((err: unknown) => {
        throw unavailable(err);
      });
      if (result.timedOut) throw new TrawlError('EXTRACTION_FAILED', `OCR took longer than ${Math.round(timeoutMs / 1000)} s and was stopped`);
      if (result.code !== 0) {
        const reason = result.stderr.trim().split('\n').filter(Boolean).pop() ?? `exit code ${result.code}`;
        throw new TrawlError('EXTRACTION_FAILED', `The image could not be read: ${reason}`);
      }
      return result.stdout;
    },
  };
  return engine;
}

/**
 * OCR text as an HTML document for the content pipeline: blank lines (and
 * page breaks) separate paragraphs, and the lines of a paragraph are joined.
 */
export function ocrTextToHtml(text: string, title: string): string {
  const paragraphs = text
    .replace(/\f/g, '\n\n')
    .split(/\n\s*\n/)
    .map((p) => joinLines(p.split('\n').map((l) => l.trim()).filter(Boolean)))
    .filter(Boolean);
  return documentHtml(title, paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`));
}
