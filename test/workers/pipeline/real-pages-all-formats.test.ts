import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { runPipeline, type PipelineInput } from '../../../workers/pipeline/index.js';
import { PROFILE_NAMES, type RagChunk } from '../../../workers/pipeline/structured/index.js';

// Shared reference pages, read in place (never copied into the repository).
const DATA = fileURLToPath(new URL('../../../../shared/data/extraction/', import.meta.url));
const noLlm = { llm: { baseUrl: '', apiKey: '', model: 'none', timeoutMs: 1_000 } };
const ALL_FORMATS = ['markdown', 'text', 'html', 'json', 'json_v2', 'rag'];

interface Case {
  file: string;
  with: string[];
}

/** Every 12th case of the shared set: about forty real pages in many languages and layouts. */
function sample(): Array<[string, Case]> {
  const cases = (JSON.parse(readFileSync(`${DATA}cases.json`, 'utf8')) as { cases: Record<string, Case> }).cases;
  return Object.entries(cases).filter((_, i) => i % 12 === 0);
}

const input = (html: string, url: string): PipelineInput => ({
  url,
  body: html,
  contentType: 'text/html',
  formats: ALL_FORMATS,
  onlyMainContent: true,
  rag: { chunkSize: 256, overlap: 32 },
});

describe('pipeline: every format on real pages', function () {
  this.timeout(120_000);
  before(function () {
    expect(existsSync(`${DATA}cases.json`), `reference pages at ${DATA}`).to.equal(true);
  });

  const found = new Map<string, boolean>();

  for (const [name, c] of sample()) {
    it(`produces every format for ${name}`, async () => {
      const html = gunzipSync(readFileSync(`${DATA}${c.file}`)).toString('utf8');
      const url = `https://pages.example/${encodeURIComponent(name)}`;
      const out = await runPipeline(input(html, url), noLlm);
      const f = out.formats;
      expect(f).to.have.all.keys(...ALL_FORMATS);

      const markdown = f['markdown'] as string;
      const text = f['text'] as string;
      expect(markdown.trim(), 'markdown').to.not.equal('');
      expect(text.trim(), 'text').to.not.equal('');
      expect(f['html'] as string).to.match(/<\w+/);
      // Whether any expected main-content segment is in the text; judged over the whole sample below.
      const norm = (s: string) => s.replace(/\s+/g, ' ');
      found.set(name, c.with.some((seg) => norm(text).includes(norm(seg).slice(0, 40))));
      // Links and images in the Markdown are absolute.
      for (const m of markdown.matchAll(/\]\(([^)\s]+)/g)) expect(m[1]!, 'link target').to.match(/^(https?:|mailto:|tel:|#|data:)/);

      const json = f['json'] as { type: string; fields: Record<string, unknown>; sources: Record<string, unknown> };
      expect(PROFILE_NAMES).to.include(json.type);
      expect(json.sources).to.include.keys('json_ld', 'microdata', 'rdfa', 'opengraph', 'twitter', 'meta');

      const tree = f['json_v2'] as { sections: unknown[] };
      expect(tree.sections).to.be.an('array');
      const again = await runPipeline(input(html, url), noLlm);
      expect(JSON.stringify(again.formats['json_v2']), 'json_v2 is deterministic').to.equal(JSON.stringify(tree));

      const chunks = f['rag'] as unknown as RagChunk[];
      expect(chunks.length).to.be.greaterThan(0);
      chunks.forEach((chunk, i) => {
        expect(chunk.position).to.equal(i);
        expect(chunk.token_count).to.be.within(1, 256);
        expect(chunk.source_url).to.equal(url);
        expect(markdown.slice(chunk.char_start, chunk.char_end).length).to.be.greaterThan(0);
      });
    });
  }

  it('finds main-content text on at least nine pages in ten of the sample', () => {
    expect(found.size).to.equal(sample().length);
    const hits = [...found.values()].filter(Boolean).length;
    expect(hits / found.size).to.be.at.least(0.9);
  });
});
