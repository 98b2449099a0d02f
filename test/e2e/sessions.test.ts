import { expect } from 'chai';
import { startSiteServer } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';

describe('stored sessions: create, list, refresh, delete, and scrapes with advanced.session_id', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let owner: { accountId: string; key: string };
  let other: { accountId: string; key: string };
  const seenCookies: string[] = [];

  before(async () => {
    stack = await getStack();
    site = await startSiteServer({
      routes: [
        {
          // A members-only page that shows which cookies it was sent.
          path: '/members',
          handle: ({ req, res }) => {
            const cookie = req.headers.cookie ?? '';
            seenCookies.push(cookie);
            const body = `<!doctype html><html><head><title>Members</title></head><body><main><h1>Members area</h1><p>Signed in with the cookies: ${cookie || 'none at all'}, and this sentence makes the page long enough.</p></main></body></html>`;
            res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
            res.end(body);
          },
        },
      ],
    });
    owner = await createTestAccount(stack, 1_000_000);
    other = await createTestAccount(stack, 1_000_000);
  });
  after(async () => site.close());

  const api = (who: { key: string }) => apiClient(stack.baseUrl, who.key);
  const newSession = (who: { key: string }, body: Record<string, unknown> = {}) =>
    api(who).post('/api/v1/sessions', { name: 'members', domain: '127.0.0.1', cookies: { sid: 's3cr3t-value', theme: 'dark' }, ...body });
  const scrapeWith = (who: { key: string }, sessionId: string, url = `${site.url}/members`) =>
    api(who).post('/api/v1/scrape', { url, formats: ['text'], advanced: { session_id: sessionId } });

  it('stores a session showing only its cookie names, and scrapes with its cookies', async () => {
    const created = await newSession(owner);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ name: 'members', domain: '127.0.0.1', status: 'active', expires_at: null, last_used_at: null });
    expect(created.body.cookie_names).to.deep.equal(['sid', 'theme']);
    expect(JSON.stringify(created.body)).not.to.contain('s3cr3t-value');

    const res = await scrapeWith(owner, created.body.session_id);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.content).to.contain('sid=s3cr3t-value; theme=dark');
    expect(seenCookies.at(-1)).to.equal('sid=s3cr3t-value; theme=dark');

    const got = await api(owner).get(`/api/v1/sessions/${created.body.session_id}`);
    expect(got.body.last_used_at).to.be.a('string');

    // The cookie values are sealed at rest and never written into the job.
    const row = await stack.pool.query('SELECT cookies_sealed FROM stored_sessions WHERE id = $1', [created.body.session_id]);
    expect(Buffer.from(row.rows[0].cookies_sealed).toString('latin1')).not.to.contain('s3cr3t-value');
    const job = await stack.pool.query('SELECT request::text AS request FROM jobs WHERE id = $1', [res.body.job_id]);
    expect(job.rows[0].request).not.to.contain('s3cr3t-value');
  });

  it('sends inline advanced.cookies too', async () => {
    const res = await api(owner).post('/api/v1/scrape', { url: `${site.url}/members`, formats: ['text'], advanced: { cookies: { lang: 'en' } } });
    expect(res.status).to.equal(200);
    expect(res.body.content).to.contain('lang=en');
  });

  it('lists sessions by status and refreshes cookies and expiry', async () => {
    const created = await newSession(owner, { name: 'to refresh' });
    const id = created.body.session_id;
    await stack.pool.query("UPDATE stored_sessions SET expires_at = now() - interval '1 minute' WHERE id = $1", [id]);
    const expired = await api(owner).get('/api/v1/sessions?status=expired');
    expect(expired.body.sessions.map((s: { session_id: string }) => s.session_id)).to.include(id);
    expect(expired.body.limit).to.equal(50);

    const refused = await scrapeWith(owner, id);
    // SPEC 7.3: SESSION_EXPIRED with status 410 is a stored session whose cookies expired (401 is a dashboard token's).
    expect(refused.status).to.equal(410);
    expect(refused.body.error).to.equal('SESSION_EXPIRED');
    expect(refused.body.message).to.contain('expired');
    expect(refused.body.details).to.include({ status: 'expired' });

    const later = new Date(Date.now() + 3_600_000).toISOString();
    const refreshed = await api(owner).post(`/api/v1/sessions/${id}/refresh`, { cookies: { sid: 'fresh' }, expires_at: later });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    expect(refreshed.body).to.include({ status: 'active' });
    expect(refreshed.body.cookie_names).to.deep.equal(['sid']);
    expect(new Date(refreshed.body.expires_at).getTime()).to.equal(new Date(later).getTime());
    const res = await scrapeWith(owner, id);
    expect(res.status).to.equal(200);
    expect(res.body.content).to.contain('sid=fresh');

    const forever = await api(owner).post(`/api/v1/sessions/${id}/refresh`, { expires_at: null });
    expect(forever.body.expires_at).to.equal(null);
    expect(forever.body.cookie_names).to.deep.equal(['sid']);
  });

  it('answers SESSION_NOT_FOUND, SESSION_DOMAIN_MISMATCH and SESSION_INACTIVE, charging nothing', async () => {
    const mine = await newSession(owner, { name: 'checks' });
    const elsewhere = await newSession(owner, { name: 'elsewhere', domain: 'example.com' });
    const before = await balanceOf(stack.pool, owner.accountId);

    const foreign = await scrapeWith(other, mine.body.session_id);
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error).to.equal('SESSION_NOT_FOUND');
    expect((await api(other).get(`/api/v1/sessions/${mine.body.session_id}`)).status).to.equal(404);
    expect((await scrapeWith(owner, '00000000-0000-4000-8000-000000000000')).body.error).to.equal('SESSION_NOT_FOUND');
    // A malformed id is a bad request, in a scrape's advanced.session_id as in a route's path (as for jobs).
    const malformed = await api(owner).get('/api/v1/sessions/not-a-session');
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error).to.equal('VALIDATION_ERROR');

    const mismatch = await scrapeWith(owner, elsewhere.body.session_id);
    expect(mismatch.status).to.equal(400);
    expect(mismatch.body.error).to.equal('SESSION_DOMAIN_MISMATCH');

    expect((await api(owner).call('DELETE', `/api/v1/sessions/${mine.body.session_id}`)).status).to.equal(204);
    const gone = await scrapeWith(owner, mine.body.session_id);
    expect(gone.status).to.equal(410);
    expect(gone.body.error).to.equal('SESSION_INACTIVE');
    expect((await api(owner).post(`/api/v1/sessions/${mine.body.session_id}/refresh`, { cookies: { a: 'b' } })).status).to.equal(410);
    expect((await api(owner).call('DELETE', `/api/v1/sessions/${mine.body.session_id}`)).status).to.equal(410);
    const inactive = await api(owner).get('/api/v1/sessions?status=inactive');
    expect(inactive.body.sessions.map((s: { session_id: string }) => s.session_id)).to.include(mine.body.session_id);
    const listed = await api(owner).get('/api/v1/sessions');
    expect(listed.body.sessions.map((s: { session_id: string }) => s.session_id)).not.to.include(mine.body.session_id);

    const conflict = await api(owner).post('/api/v1/scrape', { url: `${site.url}/members`, advanced: { session_id: elsewhere.body.session_id, cookies: { a: 'b' } } });
    expect(conflict.body.error).to.equal('SESSION_COOKIES_CONFLICT');
    expect(await balanceOf(stack.pool, owner.accountId)).to.equal(before);
  });

  it('makes an expired session active again when refreshed with new cookies alone', async () => {
    const created = await newSession(owner, { name: 'lapsing', expires_at: new Date(Date.now() + 1500).toISOString() });
    const id = created.body.session_id;
    await new Promise((resolve) => setTimeout(resolve, 1700));
    expect((await scrapeWith(owner, id)).body.error).to.equal('SESSION_EXPIRED');
    const refreshed = await api(owner).post(`/api/v1/sessions/${id}/refresh`, { cookies: { sid: 'again' } });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    expect(refreshed.body).to.include({ status: 'active', expires_at: null });
    const res = await scrapeWith(owner, id);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    expect(res.body.content).to.contain('sid=again');
  });

  it('checks the session before answering from the cache, and caches by the cookies it holds', async () => {
    const created = await newSession(owner, { name: 'cached' });
    const id = created.body.session_id;
    const cachedScrape = () => api(owner).post('/api/v1/scrape', { url: `${site.url}/members`, formats: ['text'], cache: true, advanced: { session_id: id } });
    expect((await cachedScrape()).body.cached).to.equal(false);
    expect((await cachedScrape()).body.cached).to.equal(true);
    // Refreshed with other cookies, the session makes another page: it is fetched again.
    await api(owner).post(`/api/v1/sessions/${id}/refresh`, { cookies: { sid: 'renewed' } });
    const renewed = await cachedScrape();
    expect(renewed.body.cached).to.equal(false);
    expect(renewed.body.content).to.contain('sid=renewed');
    // Deleted, it answers 410 however fresh the cached result.
    expect((await api(owner).call('DELETE', `/api/v1/sessions/${id}`)).status).to.equal(204);
    const gone = await cachedScrape();
    expect(gone.status, JSON.stringify(gone.body)).to.equal(410);
    expect(gone.body.error).to.equal('SESSION_INACTIVE');
  });

  it('keeps at most 50 live sessions per account, even when created at once', async () => {
    const account = await createTestAccount(stack, 0);
    const results = await Promise.all(Array.from({ length: 56 }, (_, i) => newSession(account, { name: `s${i}` })));
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 429);
    expect(created).to.have.length(50);
    expect(refused).to.have.length(6);
    expect(refused[0]!.body.error).to.equal('SESSION_LIMIT_REACHED');
    await api(account).call('DELETE', `/api/v1/sessions/${created[0]!.body.session_id}`);
    expect((await newSession(account, { name: 'after a delete' })).status).to.equal(201);
  });

  it('refuses malformed sessions', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ cookies: { sid: 'a;b' } }, 'cookies.sid'],
      [{ cookies: { 'bad name': 'x' } }, 'cookies'],
      [{ cookies: {} }, 'cookies'],
      [{ domain: 'https://example.com/' }, 'domain'],
      [{ expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: '' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await newSession(owner, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.details.fields.map((f: { field: string }) => f.field).join(' '), JSON.stringify(body)).to.contain(field);
    }
    expect((await api(owner).post('/api/v1/scrape', { url: `${site.url}/members`, advanced: { cookies: { sid: 'x\r\nHost: evil' } } })).status).to.equal(400);
    expect((await api(owner).get('/api/v1/sessions?status=deleted')).status).to.equal(400);
  });
});
