export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small client for the public API as a user would call it. */
export function apiClient(baseUrl: string, key?: string) {
  const call = async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(key ? { 'X-API-Key': key } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: left as text
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, undefined, headers),
    post: <T = any>(path: string, body: unknown, headers?: Record<string, string>) => call<T>('POST', path, body, headers),
    call,
  };
}

/** Polls a job until it leaves pending/running (or `timeoutMs` passes) and returns its last record. */
export async function pollJob(api: ReturnType<typeof apiClient>, pollUrl: string, timeoutMs: number): Promise<any> {
  const until = Date.now() + timeoutMs;
  let job;
  do {
    job = (await api.get(pollUrl)).body;
    if (!['pending', 'running'].includes(job.status)) break;
    await new Promise((r) => setTimeout(r, 200));
  } while (Date.now() < until);
  return job;
}

export async function balanceOf(pool: import('pg').Pool, accountId: string): Promise<number> {
  const row = await pool.query<{ balance_microcents: string }>('SELECT balance_microcents FROM accounts WHERE id = $1', [accountId]);
  return Number(row.rows[0]!.balance_microcents);
}

/** A result's billing.escalations as [tier, result, credits] rows, for comparing whole escalation paths. */
export function escalationSteps(body: { billing: { escalations: Array<{ tier: string; result: string; credits: number }> } }): Array<[string, string, number]> {
  return body.billing.escalations.map((e) => [e.tier, e.result, e.credits]);
}
