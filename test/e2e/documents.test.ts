import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { startSiteServer, type SiteRoute } from '../fixtures/site-server.js';
import { apiClient, balanceOf } from '../support/api.js';
import { createTestAccount, getStack, type TestStack } from '../support/stack.js';
import { createTestUser } from '../support/users.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/documents/${name}`, import.meta.url));
const REPORT_PDF = fixture('report.pdf');
const MANUAL_PDF = fixture('manual.pdf');
const INVOICE_PNG = fixture('invoice.png');

function serve(path: string, body: Buffer, contentType: string | null): SiteRoute {
  return {
    path,
    handle: ({ res }) => {
      res.writeHead(200, { 'content-length': body.length, ...(contentType ? { 'content-type': contentType } : {}) });
      res.end(body);
    },
  };
}

describe('documents: modes pdf and ocr on the document pool, and PDFs in mode auto', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let site: Awaited<ReturnType<typeof startSiteServer>>;
  let account: { accountId: string; key: string };
  const scrape = (body: Record<string, unknown>) => apiClient(stack.baseUrl, account.key).post('/api/v1/scrape', body);

  before(async () => {
    stack = await getStack();
    site = await startSiteServer({
      routes: [
        serve('/docs/report.pdf', REPORT_PDF, 'application/pdf'),
        serve('/docs/manual.pdf', MANUAL_PDF, 'application/pdf'),
        serve('/docs/download', REPORT_PDF, 'application/octet-stream'),
        serve('/docs/invoice.png', INVOICE_PNG, 'image/png'),
        serve('/docs/broken.pdf', Buffer.from('%PDF-1.7\nthis is not really a PDF\n%%EOF\n'), 'application/pdf'),
      ],
    });
    account = await createTestAccount(stack, 1_000_000);
  });
  after(async () => site.close());

  it('reads a PDF in mode pdf: headings, paragraphs and a table in Markdown, at the tier-1 price', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await scrape({ url: `${site.url}/docs/report.pdf`, mode: 'pdf', formats: ['markdown', 'text'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    const md: string = res.body.content.markdown;
    expect(md).to.match(/^# Quarterly Report 2026$/m);
    expect(md).to.match(/^## Regional results$/m);
    expect(md).to.contain('Revenue grew by twelve percent compared with the same quarter last year');
    expect(md).to.match(/^\| *Region *\| *Revenue *\| *Growth *\|$/m);
    expect(md).to.match(/^\| *North *\| *1,200 *\| *18% *\|$/m);
    expect(res.body.content.text).to.contain('We expect the fourth quarter to continue the trend.');
    expect(res.body.title).to.equal('Quarterly Report');
    expect(res.body.billing).to.include({ total_credits: 1, tier_used: '1' });
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 200);
  });

  it('leaves the running head and the page numbers of a multi-page PDF out and keeps every page', async () => {
    const res = await scrape({ url: `${site.url}/docs/manual.pdf`, mode: 'pdf', formats: ['markdown'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    const md: string = res.body.content;
    for (const n of [1, 2, 3, 4]) expect(md).to.match(new RegExp(`^## Chapter ${n}$`, 'm'));
    expect(md.match(/^Paragraph \d of chapter \d/gm)).to.have.length(24);
    expect(md).not.to.contain('ACME Harbour Authority internal');
    expect(md).not.to.match(/^\d+$/m);
  });

  it('reads a PDF that mode auto meets by its content type, on tier 1', async () => {
    const res = await scrape({ url: `${site.url}/docs/report.pdf`, formats: ['markdown'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.match(/^# Quarterly Report 2026$/m);
    expect(res.body.billing).to.include({ total_credits: 1, tier_used: '1' });
  });

  it('recognises a PDF sent as application/octet-stream in mode pdf', async () => {
    const res = await scrape({ url: `${site.url}/docs/download`, mode: 'pdf', formats: ['text'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain('Every region grew, the north most of all.');
  });

  it('reads the text of an image in mode ocr, charging the OCR add-on', async () => {
    const before = await balanceOf(stack.pool, account.accountId);
    const res = await scrape({ url: `${site.url}/docs/invoice.png`, mode: 'ocr', formats: ['text'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain('The quick brown fox jumps over the lazy dog.');
    expect(res.body.content).to.contain('Invoice number 48213');
    expect(res.body.billing).to.include({ total_credits: 6, tier_used: '1' });
    expect(await balanceOf(stack.pool, account.accountId)).to.equal(before - 1_200);
  });

  it('reads an image in mode auto when advanced.ocr is set', async () => {
    const res = await scrape({ url: `${site.url}/docs/invoice.png`, formats: ['markdown'], advanced: { ocr: true } });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(200);
    expect(res.body.content).to.contain('Invoice number 48213');
    expect(res.body.billing.total_credits).to.equal(6);
  });

  const refused: Array<[string, Record<string, unknown>, number, string]> = [
    ['mode pdf on an HTML page', { url: '/article', mode: 'pdf' }, 415, 'UNSUPPORTED_CONTENT_TYPE'],
    ['mode ocr on a PDF', { url: '/docs/report.pdf', mode: 'ocr' }, 415, 'UNSUPPORTED_CONTENT_TYPE'],
    ['a file that is not a readable PDF', { url: '/docs/broken.pdf', mode: 'pdf' }, 422, 'EXTRACTION_FAILED'],
    ['an OCR language this service has no data for', { url: '/docs/invoice.png', mode: 'ocr', advanced: { ocr_language: 'tlh' } }, 400, 'VALIDATION_ERROR'],
  ];
  for (const [what, body, status, code] of refused) {
    it(`answers ${what} with ${status} ${code}, refunded`, async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const res = await scrape({ ...body, url: `${site.url}${body['url'] as string}` });
      expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(status);
      expect(res.body.error).to.equal(code);
      expect(res.body.billing).to.include({ refunded: true, total_credits: 0 });
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    });
  }

  const invalid: Array<[string, Record<string, unknown>, string, string]> = [
    ['mode pdf with render_js', { mode: 'pdf', advanced: { render_js: true } }, 'VALIDATION_ERROR', 'advanced.render_js'],
    ['mode ocr with force_tier 2', { mode: 'ocr', cost_controls: { force_tier: '2' } }, 'VALIDATION_ERROR', 'cost_controls.force_tier'],
    ['an OCR language that is not a Tesseract code', { mode: 'ocr', advanced: { ocr_language: 'English' } }, 'VALIDATION_ERROR', 'advanced.ocr_language'],
  ];
  for (const [what, body, code, field] of invalid) {
    it(`refuses ${what} before anything runs`, async () => {
      const before = await balanceOf(stack.pool, account.accountId);
      const res = await scrape({ url: `${site.url}/docs/invoice.png`, ...body });
      expect(res.status, JSON.stringify(res.body).slice(0, 400)).to.equal(400);
      expect(res.body.error).to.equal(code);
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).to.include(field);
      expect(await balanceOf(stack.pool, account.accountId)).to.equal(before);
    });
  }

  it('refuses OCR above cost_controls.max_credits with EXCEEDS_COST_LIMIT', async () => {
    const res = await scrape({ url: `${site.url}/docs/invoice.png`, mode: 'ocr', cost_controls: { max_credits: 5 } });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('EXCEEDS_COST_LIMIT');
    expect(res.body.details).to.include({ max_credits: 5, estimated_credits: 6 });
  });

  it('estimates documents as runnable, with the OCR add-on', async () => {
    const api = apiClient(stack.baseUrl, account.key);
    const pdf = await api.post('/api/v1/scrape/estimate', { url: `${site.url}/docs/report.pdf`, mode: 'pdf' });
    expect(pdf.body).to.include({ runnable: true, estimated_credits: 1 });
    const ocr = await api.post('/api/v1/scrape/estimate', { url: `${site.url}/docs/invoice.png`, mode: 'ocr' });
    expect(ocr.body).to.include({ runnable: true, estimated_credits: 6 });
  });

  it('serves the deprecated /scrape/pdf and /scrape/ocr routes through the document pool', async () => {
    const api = apiClient(stack.baseUrl, account.key);
    const pdf = await api.post('/api/v1/scrape/pdf', { url: `${site.url}/docs/report.pdf`, format: 'text' });
    expect(pdf.status, JSON.stringify(pdf.body).slice(0, 400)).to.equal(200);
    expect(pdf.body.content).to.contain('Regional results');
    expect(pdf.body.content).not.to.contain('##');
    expect(pdf.headers.get('deprecation')).to.be.a('string');
    const ocr = await api.post('/api/v1/scrape/ocr', { url: `${site.url}/docs/invoice.png`, language: 'eng' });
    expect(ocr.status, JSON.stringify(ocr.body).slice(0, 400)).to.equal(200);
    expect(ocr.body.content).to.contain('quick brown fox');
    const bad = await api.post('/api/v1/scrape/ocr', { url: `${site.url}/docs/invoice.png`, language: 'english!' });
    expect(bad.status).to.equal(400);
    expect(bad.body.details.fields.map((f: { field: string }) => f.field)).to.include('language');
  });

  it('reports OCR availability to administrators only, by key or by session', async () => {
    const admin = await createTestUser(stack, { role: 'admin' });
    const user = await createTestUser(stack);
    for (const auth of [{ 'X-API-Key': admin.key }, { Authorization: `Bearer ${admin.token}` }] as Record<string, string>[]) {
      const res = await apiClient(stack.baseUrl).get('/api/v1/health/ocr', auth);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ status: 'available' });
      expect(res.body.workers).to.be.at.least(1);
      expect(res.body.languages).to.include('eng');
      expect(res.body.engine).to.match(/^tesseract \d/);
    }
    for (const auth of [{ 'X-API-Key': user.key }, { Authorization: `Bearer ${user.token}` }, { 'X-API-Key': account.key }] as Record<string, string>[]) {
      const res = await apiClient(stack.baseUrl).get('/api/v1/health/ocr', auth);
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('FORBIDDEN');
    }
    expect((await apiClient(stack.baseUrl).get('/api/v1/health/ocr')).status).to.equal(401);
  });
});
