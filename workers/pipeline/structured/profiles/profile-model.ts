import type { Entity, Evidence, JsonObject, StructuredData } from '../structured-data-model.js';
import type { Resolved } from './field-resolution.js';
import type { PageIndex } from './page-index.js';

export const PROFILE_NAMES = ['product', 'article', 'job_posting', 'faq', 'recipe', 'event'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];
/** What callers may ask for: a profile, or `auto` to detect one. */
export type ProfileRequest = ProfileName | 'auto';

export function isProfileRequest(value: string): value is ProfileRequest {
  return value === 'auto' || (PROFILE_NAMES as readonly string[]).includes(value);
}

export interface ProfileOptions {
  /** Main-content text of the page, from the content pipeline; becomes article.content. */
  mainText?: string | null;
}

export interface ProfileContext extends ProfileOptions {
  data: StructuredData;
  index: PageIndex;
  /** Entities of the profile's types describing the page's main thing, best first. */
  entities: Entity[];
}

export interface ProfileDefinition {
  name: ProfileName;
  /** Field names in output order. */
  fields: readonly string[];
  matchesType(type: string): boolean;
  resolve(ctx: ProfileContext): Record<string, Resolved | null>;
}

export interface ProfileResult {
  type: ProfileName;
  /** Every field of the profile, null when nothing was found. */
  fields: JsonObject;
  /** Provenance of each filled field. */
  evidence: Record<string, Evidence>;
}
