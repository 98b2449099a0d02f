import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** The server closed the connection after the answer. */
  closed: boolean;
}

/**
 * One HTTP/1.1 request over a raw socket, so a test controls exactly what is
 * sent (a body of any bytes, a declared length larger than what is sent) and
 * sees whether the server closes the connection after answering.
 */
export function rawRequest(
  baseUrl: string,
  opts: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: Buffer;
    contentLength?: number;
    /** Send the body with Transfer-Encoding: chunked (no Content-Length), one chunk per buffer. */
    chunks?: Buffer[];
    closeWaitMs?: number;
  },
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = opts.chunks
    ? Buffer.concat([...opts.chunks.flatMap((c) => [Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]), Buffer.from('0\r\n\r\n')])
    : (opts.body ?? Buffer.alloc(0));
  const headers: Record<string, string> = {
    host: url.host,
    connection: 'keep-alive',
    ...(opts.chunks ? { 'transfer-encoding': 'chunked' } : {}),
    ...(!opts.chunks && (opts.body || opts.contentLength !== undefined) ? { 'content-length': String(opts.contentLength ?? body.length) } : {}),
    ...opts.headers,
  };
  const head = `${opts.method} ${opts.path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let data = Buffer.alloc(0);
    let parsed: Omit<RawResponse, 'closed'> | null = null;
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled || !parsed) return;
      settled = true;
      socket.destroy();
      resolve({ ...parsed, closed });
    };
    socket.on('error', (err) => {
      if (parsed) finish(true);
      else if (!settled) reject(err);
    });
    socket.on('close', () => {
      if (parsed) finish(true);
      else if (!settled) reject(new Error(`connection closed before an answer: ${data.toString('latin1').slice(0, 200)}`));
    });
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (parsed) return;
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = data.subarray(0, end).toString('latin1').split('\r\n');
      const responseHeaders: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        responseHeaders[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(responseHeaders['content-length'] ?? 0);
      if (data.length < end + 4 + length) return;
      const text = data.subarray(end + 4, end + 4 + length).toString('utf8');
      let parsedBody: unknown = text;
      try {
        parsedBody = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      parsed = { status: Number(lines[0]!.split(' ')[1]), headers: responseHeaders, body: parsedBody };
      setTimeout(() => finish(false), opts.closeWaitMs ?? 1_000);
    });
    socket.write(head);
    if (body.length > 0) socket.write(body);
  });
}
