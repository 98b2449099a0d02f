import type pg from 'pg';

/**
 * Writes the settings every ledger statement reads (the credits.low
 * threshold) from the configuration; the control plane does it when it
 * starts, so give every replica the same value.
 */
export async function writeBillingSettings(db: pg.Pool, settings: { creditsLowThresholdMicrocents: number }): Promise<void> {
  await db.query(
    `INSERT INTO billing_settings (singleton, credits_low_threshold_microcents) VALUES (true, $1)
     ON CONFLICT (singleton) DO UPDATE SET credits_low_threshold_microcents = EXCLUDED.credits_low_threshold_microcents`,
    [settings.creditsLowThresholdMicrocents],
  );
}
