import { create, toBinary } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { renderEventBody } from '../../../control-plane/events/event-body.js';
import { MapResultSchema } from '../../../proto/gen/trawl/v1/map_pb.js';

const event = (jobId: string) => ({
  id: '00000000-0000-4000-8000-000000000001',
  account_id: '00000000-0000-4000-8000-000000000002',
  type: 'job.completed',
  payload: { job_id: jobId, status: 'completed', result: { status_code: 200 } },
  created_at: new Date('2026-11-25T10:00:00Z'),
  result_key: 'results:stored',
});

describe('event bodies', () => {
  it('renders job.completed without content when the stored result is not a scrape result, instead of failing', async () => {
    const notAScrape = toBinary(MapResultSchema, create(MapResultSchema, { sitemapFound: true }));
    for (const stored of [new Uint8Array([0, 0, 0, 1, 2, 3]), notAScrape]) {
      const body = JSON.parse(await renderEventBody(event('00000000-0000-4000-8000-000000000003'), async () => stored));
      expect(body).to.deep.include({ event: 'job.completed', timestamp: '2026-11-25T10:00:00.000Z' });
      expect(body.data.job_id).to.equal('00000000-0000-4000-8000-000000000003');
      expect(body.data.result.status_code).to.equal(200);
    }
  });
});
