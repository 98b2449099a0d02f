import { createClickHouse } from '../common/connections.js';
import { runProcess } from '../common/process-runner.js';
import { ensureAnalyticsSchema } from './schema.js';
import { startRequestLogSink } from './sink.js';

await runProcess('analytics-sink', async ({ config, log, js, jsm, names }) => {
  const bootstrap = createClickHouse(config, 'default');
  await ensureAnalyticsSchema(bootstrap, config.clickhouseDatabase);
  await bootstrap.close();

  const clickhouse = createClickHouse(config);
  // Few large inserts: each insert is a new ClickHouse part to merge later.
  const sink = await startRequestLogSink(
    { js, jsm, names, clickhouse, log },
    { database: config.clickhouseDatabase, batchRows: 10_000, flushIntervalMs: 1_000, maxPendingMessages: 256 },
  );
  log.info('analytics sink started');
  return {
    async stop() {
      await sink.stop();
      await clickhouse.close();
    },
  };
});
