import { create } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { crawlEventStream, lastEventId } from '../../../gateway/api/crawl/event-stream.js';
import { CrawlEventSchema, ReadCrawlEventsResponseSchema, type ReadCrawlEventsResponse } from '../../../proto/gen/trawl/v1/crawl_pb.js';

const batch = (ids: number[], ended = false, last = 'page.completed'): ReadCrawlEventsResponse =>
  create(ReadCrawlEventsResponseSchema, {
    ended,
    events: ids.map((id, i) => create(CrawlEventSchema, { id: BigInt(id), event: i === ids.length - 1 ? last : 'page.completed', data: { n: id } })),
  });

async function collect(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

describe('gateway/crawl event stream', () => {
  it('sends heartbeats while nothing happens and a timeout event at the longest duration, then closes', async () => {
    const reads: bigint[] = [];
    const stream = crawlEventStream({ read: async (after) => (reads.push(after), batch([])) }, 7n, batch([]), { heartbeatMs: 30, maxMs: 200, pollMs: 10 });
    const text = await collect(stream);
    expect(text.match(/event: heartbeat/g)!.length).to.be.within(3, 8);
    expect(text).to.match(/event: timeout\ndata: \{"message":"[^"]+","last_event_id":7\}\n\n$/);
    expect(text).not.to.match(/^id:/m);
    expect(reads.every((r) => r === 7n)).to.equal(true);
  });

  it('writes stored events with their ids, reads on from the last one, and closes after crawl.completed', async () => {
    const reads: bigint[] = [];
    const pages = [batch([3, 4]), batch([5, 6], false, 'crawl.completed')];
    const stream = crawlEventStream({ read: async (after) => (reads.push(after), pages.shift() ?? batch([], true)) }, 2n, batch([]), { heartbeatMs: 10_000, maxMs: 10_000, pollMs: 5 });
    const text = await collect(stream);
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).to.deep.equal([3, 4, 5, 6]);
    expect(text.trimEnd().endsWith('event: crawl.completed\ndata: {"n":6}')).to.equal(true);
    expect(reads).to.deep.equal([2n, 4n]);
  });

  it('reads Last-Event-ID as a stored id, anything else as the start', () => {
    expect(lastEventId('42')).to.equal(42n);
    expect(lastEventId(' 42 ')).to.equal(42n);
    expect(lastEventId('-1')).to.equal(0n);
    expect(lastEventId('abc')).to.equal(0n);
    expect(lastEventId(undefined)).to.equal(0n);
  });
});
