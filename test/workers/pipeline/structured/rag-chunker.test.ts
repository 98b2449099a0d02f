import { expect } from 'chai';
import { countTokens, encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { TrawlError } from '../../../../common/errors.js';
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, chunkMarkdown, type RagChunk } from '../../../../workers/pipeline/structured/index.js';
import { sentenceSegmenter, sentenceSpans } from '../../../../workers/pipeline/structured/rag/text-splitting.js';
import { cl100kTokenizer, MAX_RUN_CHARS } from '../../../../workers/pipeline/structured/rag/tokenizer.js';
import { profilePage } from './profile-pages.js';

const sentences = (n: number, topic: string): string =>
  Array.from({ length: n }, (_, i) => `${topic} sentence ${i} explains one more detail about the subject at hand.`).join(' ');

const DOC = `# Field guide

A short introduction to the guide.

## Setup

${sentences(6, 'Setup')}

${sentences(30, 'Setup')}

### Settings table

| name | default | meaning |
|------|---------|---------|
${Array.from({ length: 40 }, (_, i) => `| option_${i} | ${i * 10} | what option ${i} changes in the run |`).join('\n')}

### Script

\`\`\`python
${Array.from({ length: 50 }, (_, i) => `value_${i} = compute(${i}, label="item ${i}")`).join('\n')}
\`\`\`

## Usage

- ${sentences(2, 'First item')}
- ${sentences(2, 'Second item')}
- ${sentences(2, 'Third item')}

## Notes

### Deeper

Only a line here.
`;

function assertWithinSize(chunks: RagChunk[], size: number): void {
  for (const c of chunks) {
    expect(c.token_count, `chunk ${c.position}`).to.equal(countTokens(c.content, { disallowedSpecial: new Set() }));
    expect(c.token_count, `chunk ${c.position}`).to.be.at.most(size);
  }
}

describe('structured/rag chunking', () => {
  it('uses real cl100k counts and never exceeds chunkSize, for every size', () => {
    for (const size of [24, 40, 64, 128, 256, 512]) {
      const chunks = chunkMarkdown(DOC, { chunkSize: size, overlap: Math.floor(size / 5) });
      expect(chunks.length, `size ${size}`).to.be.greaterThan(1);
      assertWithinSize(chunks, size);
    }
  });

  it('numbers chunks from 0 and carries the source URL', () => {
    const chunks = chunkMarkdown(DOC, { chunkSize: 128, overlap: 16, sourceUrl: 'https://docs.example/guide' });
    expect(chunks.map((c) => c.position)).to.deep.equal(chunks.map((_, i) => i));
    expect(chunks.every((c) => c.source_url === 'https://docs.example/guide')).to.equal(true);
    expect(Object.keys(chunks[0]!)).to.deep.equal(['position', 'content', 'token_count', 'heading_path', 'source_url', 'char_start', 'char_end']);
  });

  it('gives each chunk the path of headings it sits under', () => {
    const chunks = chunkMarkdown(DOC, { chunkSize: 128, overlap: 16 });
    const paths = [...new Set(chunks.map((c) => JSON.stringify(c.heading_path)))];
    expect(paths).to.deep.equal([
      JSON.stringify(['Field guide']),
      JSON.stringify(['Field guide', 'Setup']),
      JSON.stringify(['Field guide', 'Setup', 'Settings table']),
      JSON.stringify(['Field guide', 'Setup', 'Script']),
      JSON.stringify(['Field guide', 'Usage']),
      JSON.stringify(['Field guide', 'Notes', 'Deeper']),
    ]);
    const first = chunks[0]!;
    expect(first.content.startsWith('# Field guide\n\nA short introduction')).to.equal(true);
    // A heading with no text of its own travels with its subsection.
    const last = chunks[chunks.length - 1]!;
    expect(last.content).to.equal('## Notes\n\n### Deeper\n\nOnly a line here.');
  });

  it('cuts prose between sentences and repeats the tail of the previous chunk as overlap', () => {
    const chunks = chunkMarkdown(DOC, { chunkSize: 96, overlap: 24 }).filter((c) => c.heading_path.join('/') === 'Field guide/Setup');
    expect(chunks.length).to.be.greaterThan(3);
    for (const c of chunks) {
      expect(c.content).to.match(/^(## Setup|Setup sentence \d+)/);
      expect(c.content).to.match(/the subject at hand\.$/);
    }
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]!;
      const cur = chunks[i]!;
      expect(cur.char_start, `chunk ${i}`).to.be.lessThan(prev.char_end);
      const repeated = DOC.slice(cur.char_start, prev.char_end);
      expect(prev.content.endsWith(repeated)).to.equal(true);
      expect(cur.content.startsWith(repeated)).to.equal(true);
      expect(countTokens(repeated)).to.be.at.most(24);
    }
  });

  it('keeps prose chunks equal to the source span they report', () => {
    const chunks = chunkMarkdown(DOC, { chunkSize: 96, overlap: 24 }).filter((c) => !c.content.includes('|') && !c.content.includes('```'));
    for (const c of chunks) expect(DOC.slice(c.char_start, c.char_end), `chunk ${c.position}`).to.equal(c.content);
  });

  it('splits a long table between rows and repeats the header row in every piece', () => {
    const chunks = chunkMarkdown(DOC, { chunkSize: 96, overlap: 16 }).filter((c) => c.heading_path.at(-1) === 'Settings table');
    expect(chunks.length).to.be.greaterThan(2);
    const rows = new Set<string>();
    for (const c of chunks) {
      const lines = c.content.split('\n').filter((l) => l.startsWith('|'));
      expect(lines[0]).to.equal('| name | default | meaning |');
      expect(lines[1]).to.equal('|------|---------|---------|');
      for (const line of lines.slice(2)) {
        expect(line).to.match(/^\| option_\d+ \| \d+ \| what option \d+ changes in the run \|$/);
        rows.add(line);
      }
    }
    expect(rows.size).to.equal(40);
  });

  it('splits a long code block between lines and keeps every piece fenced', () => {
    const chunks = chunkMarkdown(DOC, { chunkSize: 96, overlap: 16 }).filter((c) => c.heading_path.at(-1) === 'Script');
    expect(chunks.length).to.be.greaterThan(2);
    const seen: string[] = [];
    for (const c of chunks) {
      const body = c.content.replace(/^### Script\n\n/, '');
      expect(body.startsWith('```python\n')).to.equal(true);
      expect(body.endsWith('\n```')).to.equal(true);
      const lines = body.split('\n').slice(1, -1);
      for (const line of lines) expect(line).to.match(/^value_\d+ = compute\(\d+, label="item \d+"\)$/);
      seen.push(...lines);
    }
    expect(seen).to.have.length(50);
  });

  it('cuts a list between items when it does not fit whole', () => {
    const chunks = chunkMarkdown(DOC, { chunkSize: 48, overlap: 0 }).filter((c) => c.heading_path.at(-1) === 'Usage');
    expect(chunks.length).to.be.greaterThan(1);
    const items: string[] = [];
    for (const c of chunks) {
      const body = c.content.replace(/^## Usage\n\n/, '');
      for (const item of body.split('\n')) {
        expect(item).to.match(/^- (First|Second|Third) item sentence 0 .* sentence 1 .*at hand\.$/);
        items.push(item);
      }
    }
    expect(items).to.have.length(3);
  });

  it('falls back to token cuts for a sentence longer than a chunk', () => {
    const run = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkMarkdown(run, { chunkSize: 50, overlap: 0 });
    assertWithinSize(chunks, 50);
    expect(chunks.map((c) => c.content).join('').replace(/\s+/g, '')).to.equal(run.replace(/\s+/g, ''));
  });

  it('never cuts inside a character; a character bigger than the chunk is the one documented exception', () => {
    const text = '日本語のテキストを分割します。'.repeat(20);
    const chunks = chunkMarkdown(text, { chunkSize: 7, overlap: 0 });
    assertWithinSize(chunks, 7);
    expect(chunks.map((c) => c.content).join('')).to.equal(text);
    const emoji = '🦜';
    expect(encode(emoji).length).to.be.greaterThan(1);
    const tiny = chunkMarkdown(emoji, { chunkSize: 1, overlap: 0 });
    expect(tiny.map((c) => c.content)).to.deep.equal([emoji]);
    expect(tiny[0]!.token_count).to.equal(encode(emoji).length);
  });

  it('treats special-token text in pages as plain text', () => {
    const text = 'Text with <|endoftext|> inside.';
    const chunks = chunkMarkdown(text, { chunkSize: 64, overlap: 8 });
    expect(chunks.map((c) => c.content)).to.deep.equal([text]);
    // The tokenizer's default refuses such text outright.
    expect(() => encode(text)).to.throw();
    expect(chunks[0]!.token_count).to.equal(encode(text, { disallowedSpecial: new Set() }).length);
  });

  it('defaults to 512-token chunks with 64 tokens of overlap', () => {
    expect([DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_OVERLAP]).to.deep.equal([512, 64]);
    const long = `# Long\n\n${sentences(200, 'Long')}`;
    const chunks = chunkMarkdown(long);
    expect(chunks.length).to.be.greaterThan(3);
    assertWithinSize(chunks, 512);
    expect(Math.max(...chunks.map((c) => c.token_count))).to.be.greaterThan(400);
    expect(chunks[1]!.char_start).to.be.lessThan(chunks[0]!.char_end);
    expect(countTokens(long.slice(chunks[1]!.char_start, chunks[0]!.char_end))).to.be.at.most(64);
  });

  it('chunks the article fixture along its headings', () => {
    const md = profilePage('article.md');
    const chunks = chunkMarkdown(md, { chunkSize: 80, overlap: 16, sourceUrl: 'https://urbanledger.example/street-trees/' });
    assertWithinSize(chunks, 80);
    const byPath = new Map<string, RagChunk[]>();
    for (const c of chunks) byPath.set(c.heading_path.join(' > '), [...(byPath.get(c.heading_path.join(' > ')) ?? []), c]);
    expect([...byPath.keys()]).to.deep.equal([
      'How Cities Are Rethinking Street Trees',
      'How Cities Are Rethinking Street Trees > Mapping the heat',
      'How Cities Are Rethinking Street Trees > Mapping the heat > Which data they use',
      'How Cities Are Rethinking Street Trees > Diversity rules',
    ]);
    expect(byPath.get('How Cities Are Rethinking Street Trees > Mapping the heat > Which data they use')!.map((c) => c.content)).to.deep.equal([
      '### Which data they use\n\n- Satellite land-surface temperature\n- Canopy cover from aerial lidar\n- Hospital admissions during heat waves',
    ]);
    const rules = byPath.get('How Cities Are Rethinking Street Trees > Diversity rules')!;
    expect(rules.some((c) => c.content.includes('| Level | Maximum share |\n|-------|---------------|\n| Species | 10% |'))).to.equal(true);
    // Every sentence of the source appears in some chunk, in order.
    const joined = chunks.map((c) => c.content).join('\n');
    for (const sentence of ['Still, the overlap between hot spots and thin canopy is strong enough', 'Cities that planted mostly elms']) {
      expect(joined).to.include(sentence);
    }
  });

  it('returns no chunks for empty input', () => {
    expect(chunkMarkdown('')).to.deep.equal([]);
    expect(chunkMarkdown('\n\n  \n')).to.deep.equal([]);
  });

  it('refuses an overlap that is not smaller than the chunk size', () => {
    for (const options of [{ chunkSize: 64, overlap: 64 }, { chunkSize: 0 }, { chunkSize: 10.5 }, { chunkSize: 64, overlap: -1 }]) {
      expect(() => chunkMarkdown('text', options)).to.throw(TrawlError).with.property('code', 'VALIDATION_ERROR');
    }
  });
});

describe('structured/rag sentence windows', () => {
  it('segments long text in windows with the same sentences and offsets as one pass', () => {
    const text = Array.from({ length: 2_000 }, (_, i) => (i % 7 === 0 ? `Line ${i}\n` : `Sentence number ${i} ends here. `)).join('');
    const segmenter = sentenceSegmenter();
    const windowed = sentenceSpans(text, 10, segmenter);
    const whole: Array<{ start: number; end: number; text: string }> = [];
    for (const s of segmenter.segment(text)) {
      const trimmed = s.segment.trim();
      if (trimmed === '') continue;
      const lead = s.segment.length - s.segment.trimStart().length;
      whole.push({ start: 10 + s.index + lead, end: 10 + s.index + lead + trimmed.length, text: trimmed });
    }
    expect(windowed).to.deep.equal(whole);
    for (const s of windowed) expect(text.slice(s.start - 10, s.end - 10)).to.equal(s.text);
  });

  it('chunks a 200,000-line paragraph without a sentence break into full chunks covering every line', () => {
    const text = 'a\n'.repeat(100_000);
    const chunks = chunkMarkdown(text, { chunkSize: 512, overlap: 0 });
    expect(chunks.length).to.be.greaterThan(100);
    for (const c of chunks) expect(c.token_count).to.be.at.most(512);
    expect(chunks.map((c) => c.content.split('a').length - 1).reduce((a, b) => a + b, 0)).to.equal(100_000);
  });
});

describe('structured/rag tokenizer on long runs', () => {
  const tokenizer = cl100kTokenizer();

  it('counts ordinary text exactly as cl100k_base does', () => {
    const text = `${DOC}\n\nNumbers 1234567 and punctuation --- !!! ... and spaces      inside.`;
    expect(tokenizer.encode(text)).to.deep.equal(encode(text));
    expect(tokenizer.count(text)).to.equal(countTokens(text));
  });

  it('encodes runs of one character class far past the run limit, losslessly and close to the exact count', () => {
    for (const run of ['a'.repeat(1_000_000), ' '.repeat(200_000), '-'.repeat(100_000), '😀'.repeat(5_000)]) {
      const text = `start ${run} end`;
      const tokens = tokenizer.encode(text);
      expect(tokenizer.decode(tokens)).to.equal(text);
      if (run.length <= 5_000 * 2) expect(Math.abs(tokens.length - countTokens(text))).to.be.at.most(Math.ceil(run.length / MAX_RUN_CHARS) + 1);
    }
  });
});
