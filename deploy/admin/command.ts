import type { ParseArgsConfig } from 'node:util';
import type pg from 'pg';
import type { TrawlConfig } from '../../common/config.js';
import { MICROCENTS_PER_USD } from '../../common/pricing.js';

/** What a command runs with: the database, the configuration and where its output goes. */
export interface AdminContext {
  pool: pg.Pool;
  config: TrawlConfig;
  /** The master key that encrypts stored API keys (TRAWL_MASTER_KEY, or the local development key). */
  masterKey(): Promise<string>;
  print(line: string): void;
}

export type OptionValues = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** One operator command: `npm run admin -- <name> <options>`. */
export interface AdminCommand {
  /** The words that name it, e.g. "accounts create". */
  name: string;
  /** Its options as usage text shows them, e.g. "--email E [--usd N]". */
  usage: string;
  summary: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run(ctx: AdminContext, values: OptionValues): Promise<void>;
}

/** Bad usage: the CLI prints the message with the command's usage and exits with status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command that could not do what was asked (unknown e-mail, taken address...): exit status 1. */
export class CommandError extends Error {
  override name = 'CommandError';
}

export function requiredString(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

/** A positive amount of US dollars, at most `max`, as whole microcents. */
export function usdAmount(values: OptionValues, name: string, max: number): number {
  const raw = values[name];
  if (raw === undefined) throw new UsageError(`--${name} is required`);
  const usd = typeof raw === 'string' && /^\d+(\.\d{1,6})?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isFinite(usd) || usd <= 0 || usd > max) throw new UsageError(`--${name} must be a number of US dollars above 0 and at most ${max}, e.g. 25 or 12.50`);
  return Math.round(usd * MICROCENTS_PER_USD);
}

/** Exactly one of two flags, e.g. --on or --off. */
export function oneOf(values: OptionValues, a: string, b: string): string {
  const set = [a, b].filter((name) => values[name] === true);
  if (set.length !== 1) throw new UsageError(`give exactly one of --${a} and --${b}`);
  return set[0]!;
}
