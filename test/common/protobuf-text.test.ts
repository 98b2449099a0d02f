import { expect } from 'chai';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { configureTextEncoding, getTextEncoding } from '@bufbuild/protobuf/wire';
import { useBufferTextEncoding } from '../../common/protobuf-text.js';
import { JobSchema } from '../../proto/gen/trawl/v1/scrape_pb.js';

/** Strings of every kind a message carries: ASCII, accents, CJK, emoji (surrogate pairs), a lone surrogate, long text. */
const TEXTS = ['succeeded', 'https://news.example/café?q=Ünïcødé', '港口疏浚', 'tide 🌊🚢', 'broken \ud800 half', 'x'.repeat(70_000), ''];

describe('protobuf strings encoded with Buffer.from', () => {
  let library: ReturnType<typeof getTextEncoding>;
  before(() => (library = getTextEncoding()));
  after(() => configureTextEncoding(library));

  it('gives the same bytes as the library default for every kind of string, and reads back the same', () => {
    const messages = TEXTS.map((text) => create(JobSchema, { jobId: text, url: text, formats: [text, 'markdown'], status: 'succeeded' }));
    const before = messages.map((m) => toBinary(JobSchema, m));
    useBufferTextEncoding();
    expect(getTextEncoding().encodeUtf8('tide')).to.be.instanceOf(Buffer);
    const after = messages.map((m) => toBinary(JobSchema, m));
    for (let i = 0; i < TEXTS.length; i++) {
      expect(Buffer.from(after[i]!).equals(Buffer.from(before[i]!)), `message ${i}`).to.equal(true);
      const back = fromBinary(JobSchema, after[i]!);
      expect(back.url).to.equal(TEXTS[i] === 'broken \ud800 half' ? 'broken \ufffd half' : TEXTS[i]);
    }
  });
});
