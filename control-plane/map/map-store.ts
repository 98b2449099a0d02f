import type { JsonObject } from '@bufbuild/protobuf';
import type { Db } from '../jobs/job-store.js';

/** A map in the history, as recorded. */
export interface MapRow {
  id: string;
  account_id: string;
  url: string;
  domain: string;
  config: JsonObject;
  result: JsonObject;
  total_urls: number;
  sitemap_found: boolean;
  credits_used: string;
  created_at: Date;
}

export type NewMap = Omit<MapRow, 'created_at'>;

/** Every statement on the maps table (migration 1732000000009). */
export async function insertMap(db: Db, map: NewMap): Promise<MapRow> {
  const res = await db.query<MapRow>(
    `INSERT INTO maps (id, account_id, url, domain, config, result, total_urls, sitemap_found, credits_used)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id
     RETURNING *`,
    [map.id, map.account_id, map.url, map.domain, map.config, map.result, map.total_urls, map.sitemap_found, map.credits_used],
  );
  return res.rows[0]!;
}

/** One map of the account; another account's map is not found, like a missing one. */
export async function findMap(db: Db, accountId: string, id: string): Promise<MapRow | undefined> {
  const res = await db.query<MapRow>('SELECT * FROM maps WHERE id = $1 AND account_id = $2', [id, accountId]);
  return res.rows[0];
}

export type MapSummaryRow = Omit<MapRow, 'config' | 'result' | 'account_id'>;

/** A page of the account's maps, newest first, optionally of one domain, with how many there are in all. */
export async function listMaps(db: Db, accountId: string, page: { limit: number; offset: number; domain?: string }): Promise<{ rows: MapSummaryRow[]; total: number }> {
  const res = await db.query<MapSummaryRow & { total: string }>(
    `SELECT id, url, domain, total_urls, sitemap_found, credits_used, created_at, count(*) OVER () AS total
     FROM maps WHERE account_id = $1 AND ($2::text IS NULL OR domain = $2)
     ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
    [accountId, page.domain ?? null, page.limit, page.offset],
  );
  let total = Number(res.rows[0]?.total ?? 0);
  if (res.rows.length === 0 && page.offset > 0) {
    const counted = await db.query<{ n: string }>('SELECT count(*) AS n FROM maps WHERE account_id = $1 AND ($2::text IS NULL OR domain = $2)', [
      accountId,
      page.domain ?? null,
    ]);
    total = Number(counted.rows[0]!.n);
  }
  return { rows: res.rows.map(({ total: _total, ...row }) => row), total };
}
