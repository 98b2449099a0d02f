import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local captcha-solving service speaking the 2captcha protocol over real
 * HTTP on 127.0.0.1: in.php takes a task (key, method, googlekey or sitekey,
 * pageurl, version and action for reCAPTCHA v3, json=1) and answers its id;
 * res.php?action=get answers CAPCHA_NOT_READY once, then the token. It
 * solves only site keys a fixture site registered, on the page they were
 * registered for, and keeps the tokens it issued so the site can verify
 * them as a real site asks the captcha vendor.
 */

export interface RegisteredSite {
  method: 'userrecaptcha' | 'hcaptcha' | 'turnstile';
  /** The path of the page the key is used on; the task's pageurl must have it. */
  path: string;
  version?: 'v3';
  action?: string;
  /** Answered by res.php instead of a token (e.g. ERROR_CAPTCHA_UNSOLVABLE). */
  failWith?: string;
}

export interface CaptchaSolverTestServer {
  /** What TRAWL_CAPTCHA_SOLVER_URL takes. */
  baseUrl: string;
  apiKey: string;
  register(sitekey: string, site: RegisteredSite): void;
  /** Whether `token` was issued for `sitekey` and not used before. */
  verify(token: string, sitekey: string): boolean;
  /** Every in.php task received, in order. */
  submissions: URLSearchParams[];
  close(): Promise<void>;
}

interface Task {
  sitekey: string;
  polls: number;
  token?: string;
  error?: string;
}

function answer(res: ServerResponse, status: 0 | 1, request: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status, request }));
}

async function formOf(req: IncomingMessage, url: URL): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  for (const [k, v] of url.searchParams) if (!form.has(k)) form.set(k, v);
  return form;
}

/** Why a task does not match the registered site, in the service's own error codes, or null. */
function mismatch(form: URLSearchParams, site: RegisteredSite | undefined): string | null {
  if (!site) return 'ERROR_WRONG_GOOGLEKEY';
  if (form.get('method') !== site.method) return 'ERROR_BAD_PARAMETERS';
  let path = '';
  try {
    path = new URL(form.get('pageurl') ?? '').pathname;
  } catch {
    return 'ERROR_PAGEURL';
  }
  if (path !== site.path) return 'ERROR_PAGEURL';
  if ((form.get('version') ?? undefined) !== site.version) return 'ERROR_BAD_PARAMETERS';
  if (site.action !== undefined && form.get('action') !== site.action) return 'ERROR_BAD_PARAMETERS';
  return null;
}

export async function startCaptchaSolverServer(): Promise<CaptchaSolverTestServer> {
  const apiKey = randomBytes(16).toString('hex');
  const sites = new Map<string, RegisteredSite>();
  const tasks = new Map<string, Task>();
  const issued = new Map<string, string>();
  const submissions: URLSearchParams[] = [];

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://solver');
    void formOf(req, url).then((form) => {
      if (form.get('key') !== apiKey) return answer(res, 0, 'ERROR_KEY_DOES_NOT_EXIST');
      if (url.pathname === '/in.php' && req.method === 'POST') {
        submissions.push(form);
        const sitekey = form.get('googlekey') ?? form.get('sitekey') ?? '';
        const site = sites.get(sitekey);
        const wrong = mismatch(form, site);
        if (wrong) return answer(res, 0, wrong);
        const id = String(100_000 + tasks.size);
        tasks.set(id, { sitekey, polls: 0, ...(site!.failWith ? { error: site!.failWith } : { token: `${sitekey}.${randomBytes(24).toString('base64url')}` }) });
        return answer(res, 1, id);
      }
      if (url.pathname === '/res.php' && form.get('action') === 'get') {
        const task = tasks.get(form.get('id') ?? '');
        if (!task) return answer(res, 0, 'ERROR_WRONG_CAPTCHA_ID');
        // Never ready at the first poll, so clients must poll.
        if (task.polls++ === 0) return answer(res, 0, 'CAPCHA_NOT_READY');
        if (task.error) return answer(res, 0, task.error);
        issued.set(task.token!, task.sitekey);
        return answer(res, 1, task.token!);
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    register: (sitekey, site) => void sites.set(sitekey, site),
    verify(token, sitekey) {
      if (issued.get(token) !== sitekey) return false;
      issued.delete(token);
      return true;
    },
    submissions,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
