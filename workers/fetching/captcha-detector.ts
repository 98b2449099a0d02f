import type { CheerioAPI } from 'cheerio';
import { parsePage } from './page-tree.js';

/**
 * Finds the captcha widget of a page in its markup: reCAPTCHA v2 (checkbox
 * or invisible), reCAPTCHA v3, hCaptcha and Cloudflare Turnstile, with what
 * a solver needs (the site key, and the action for v3 and Turnstile) and
 * what the page expects back (the callback it declared). The widget's own
 * element comes first, then the script that renders it, then its frame.
 */
export type CaptchaKind = 'recaptcha_v2' | 'recaptcha_v3' | 'hcaptcha' | 'turnstile';

export interface CaptchaWidget {
  kind: CaptchaKind;
  sitekey: string;
  /** reCAPTCHA v3 and Turnstile: the action the page verifies. */
  action?: string;
  /** reCAPTCHA v2 with data-size="invisible". */
  invisible?: boolean;
  /** The global function the page named in data-callback, called with the token. */
  callback?: string;
}

/** How each kind is named in messages. */
export const CAPTCHA_NAMES: Readonly<Record<CaptchaKind, string>> = {
  recaptcha_v2: 'reCAPTCHA v2',
  recaptcha_v3: 'reCAPTCHA v3',
  hcaptcha: 'hCaptcha',
  turnstile: 'Cloudflare Turnstile',
};

/** The action reCAPTCHA v3 is asked for when the page names none. */
export const DEFAULT_V3_ACTION = 'verify';

const WIDGET_CLASS: ReadonlyArray<[CaptchaKind, string]> = [
  ['turnstile', '.cf-turnstile[data-sitekey]'],
  ['hcaptcha', '.h-captcha[data-sitekey]'],
  ['recaptcha_v2', '.g-recaptcha[data-sitekey]'],
];

/** `<name>.render(element, { sitekey: '…' })` in an inline script. */
const RENDER_CALL: ReadonlyArray<[CaptchaKind, RegExp]> = [
  ['turnstile', /turnstile\.render\([\s\S]{0,300}?sitekey['"]?\s*:\s*['"]([\w-]+)['"]/],
  ['hcaptcha', /hcaptcha\.render\([\s\S]{0,300}?sitekey['"]?\s*:\s*['"]([\w-]+)['"]/],
  ['recaptcha_v2', /grecaptcha\.render\([\s\S]{0,300}?sitekey['"]?\s*:\s*['"]([\w-]+)['"]/],
];

/**
 * The widgets' frames, whose URL carries the site key: the parameter after
 * the widget's address. Each is found in two steps, the address and then the
 * parameter after it, so a long attribute is read once (one pattern with
 * `.*` between the two read to the end from every occurrence of the address).
 */
const FRAME_KEY: ReadonlyArray<[CaptchaKind, RegExp, RegExp]> = [
  ['hcaptcha', /hcaptcha\.com\//, /[?&#]sitekey=([\w-]+)/g],
  ['recaptcha_v2', /\/recaptcha\/api2\/(?:anchor|bframe)\?/, /[?&]k=([\w-]+)/g],
];

/** reCAPTCHA v3 loads its script with the site key as `render`, in the query (before any `#`). */
const V3_SCRIPT = /\/recaptcha\/api\.js\?/;
const V3_RENDER = /(?:^|&)render=([\w-]+)/;

/** The first match of `param` after the first match of `address` in `url`. */
function paramAfter(url: string, address: RegExp, param: RegExp): RegExpExecArray | null {
  const at = address.exec(url);
  if (!at) return null;
  param.lastIndex = at.index + at[0].length;
  return param.exec(url);
}

/** The site key of a reCAPTCHA v3 script address. */
function v3ScriptKey(src: string): string | undefined {
  const at = V3_SCRIPT.exec(src);
  if (!at) return undefined;
  const query = src.slice(at.index + at[0].length);
  const hash = query.indexOf('#');
  return V3_RENDER.exec(hash < 0 ? query : query.slice(0, hash))?.[1];
}
const V3_EXECUTE = /grecaptcha\.execute\(\s*['"]([\w-]+)['"]\s*(?:,\s*\{\s*action\s*:\s*['"]([\w/-]+)['"])?/;

function attr($: CheerioAPI, selector: string, name: string): string | undefined {
  return $(selector).first().attr(name)?.trim() || undefined;
}

function withOptional(widget: CaptchaWidget, extra: { action?: string | undefined; callback?: string | undefined; invisible?: boolean }): CaptchaWidget {
  return {
    ...widget,
    ...(extra.action ? { action: extra.action } : {}),
    ...(extra.callback ? { callback: extra.callback } : {}),
    ...(extra.invisible ? { invisible: true } : {}),
  };
}

/** The page's captcha widget, or null when it has none. */
export function findCaptcha(page: string | CheerioAPI): CaptchaWidget | null {
  const $ = typeof page === 'string' ? parsePage(page) : page;
  for (const [kind, selector] of WIDGET_CLASS) {
    const sitekey = attr($, selector, 'data-sitekey');
    if (!sitekey) continue;
    return withOptional(
      { kind, sitekey },
      {
        action: kind === 'turnstile' ? attr($, selector, 'data-action') : undefined,
        callback: attr($, selector, 'data-callback'),
        invisible: kind === 'recaptcha_v2' && attr($, selector, 'data-size') === 'invisible',
      },
    );
  }

  const inline = $('script:not([src])')
    .map((_, el) => $(el).text())
    .get()
    .join('\n');
  for (const [kind, pattern] of RENDER_CALL) {
    const match = pattern.exec(inline);
    if (match) return { kind, sitekey: match[1]! };
  }

  const scripts = $('script[src]').map((_, el) => $(el).attr('src') ?? '').get();
  const v3 = scripts.map(v3ScriptKey).find((key) => key !== undefined && key !== 'explicit' && key !== 'onload');
  const execute = V3_EXECUTE.exec(inline);
  const v3Key = v3 ?? execute?.[1];
  if (v3Key) {
    const action = (execute?.[1] === v3Key ? execute[2] : undefined) ?? attr($, '[data-action]', 'data-action') ?? DEFAULT_V3_ACTION;
    return withOptional({ kind: 'recaptcha_v3', sitekey: v3Key, action }, { callback: attr($, '[data-callback]', 'data-callback') });
  }

  const frames = $('iframe[src]').map((_, el) => $(el).attr('src') ?? '').get();
  for (const [kind, address, param] of FRAME_KEY) {
    for (const src of frames) {
      const match = paramAfter(src, address, param);
      if (match) return { kind, sitekey: match[1]! };
    }
  }
  return null;
}
