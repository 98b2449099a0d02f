import { textWithin, type DocumentText } from '../html/document-text.js';
import { INVISIBLE, parseUntil } from './visible-text.js';

/**
 * Recognises an HTML page whose content only JavaScript renders: an
 * application shell (an empty mount point and its scripts) or a page that
 * says it needs JavaScript. Such a page fetched over HTTP converts to
 * nothing useful; the browser tier renders it. Used on the answers of the
 * HTTP tiers; the control plane decides whether it escalates.
 */

/** Below this much visible text a page with scripts is a shell. */
const SHELL_TEXT_CHARS = 200;
/** Bytes parsed; a shell is small, and a large page is not one. */
export const SHELL_SCAN_BYTES = 256 * 1024;

const NEEDS_JS = /(?:enable|requires?|needs?|turn on)\s+javascript|javascript\s+(?:is\s+)?(?:required|disabled)/i;
const MOUNT_IDS: ReadonlySet<string> = new Set(['root', 'app', '__next', '__nuxt', 'svelte', 'main-app', 'q-app', 'ember-app']);

export interface ShellEvidence {
  visibleChars: number;
  scripts: number;
  emptyMount: boolean;
  noscriptNeedsJs: boolean;
}

/**
 * What the page shows of itself, read until it shows SHELL_TEXT_CHARS of
 * text (a page past that is no shell, so the rest is not parsed).
 */
export function shellEvidence(html: DocumentText): ShellEvidence {
  let visibleChars = 0;
  let scripts = 0;
  let hiddenDepth = 0;
  let inNoscript = false;
  let noscriptText = '';
  /** The mount point currently open, and whether anything appeared inside it. */
  let mount: { depth: number; filled: boolean } | null = null;
  let emptyMount = false;
  let depth = 0;
  parseUntil(
    html,
    {
      onopentag(name, attrs) {
        depth++;
        if (name === 'script') scripts++;
        if (name === 'noscript') inNoscript = true;
        if (INVISIBLE.has(name)) hiddenDepth++;
        if (mount) mount.filled = true;
        else if (attrs['id'] !== undefined && MOUNT_IDS.has(attrs['id'])) mount = { depth, filled: false };
      },
      ontext(text) {
        if (inNoscript) noscriptText += text;
        if (hiddenDepth > 0) return;
        const trimmed = text.replace(/\s+/g, ' ').trim();
        visibleChars += trimmed.length;
        if (mount && trimmed) mount.filled = true;
      },
      onclosetag(name) {
        if (mount && mount.depth === depth) {
          if (!mount.filled) emptyMount = true;
          mount = null;
        }
        if (INVISIBLE.has(name)) hiddenDepth = Math.max(0, hiddenDepth - 1);
        if (name === 'noscript') inNoscript = false;
        depth--;
      },
    },
    () => visibleChars >= SHELL_TEXT_CHARS,
  );
  return { visibleChars, scripts, emptyMount, noscriptNeedsJs: NEEDS_JS.test(noscriptText) };
}

/** True for a page whose content needs JavaScript to appear. */
export function isJavaScriptShell(html: DocumentText): boolean {
  const e = shellEvidence(textWithin(html, SHELL_SCAN_BYTES));
  if (e.scripts === 0 || e.visibleChars >= SHELL_TEXT_CHARS) return false;
  return e.emptyMount || e.noscriptNeedsJs || e.visibleChars < SHELL_TEXT_CHARS / 4;
}
