import type { Evidence, JsonObject, StructuredData } from '../structured-data-model.js';
import { buildPageIndex } from './page-index.js';
import { detectProfile } from './profile-detection.js';
import { profileEntities } from './profile-entities.js';
import type { ProfileOptions, ProfileRequest, ProfileResult } from './profile-model.js';
import { PROFILES } from './profile-registry.js';

/**
 * Fills a profile's fields from structured data first and page heuristics
 * second. `auto` detects the profile. Every field of the profile is present;
 * fields nothing was found for are null.
 */
export function applyProfile(profile: ProfileRequest, data: StructuredData, options: ProfileOptions = {}): ProfileResult {
  const index = buildPageIndex(data.document);
  const name = profile === 'auto' ? detectProfile(data, index).profile : profile;
  const definition = PROFILES[name];
  const entities = profileEntities(data.entities, definition.matchesType);
  const resolved = definition.resolve({ ...options, data, index, entities });
  const fields: JsonObject = {};
  const evidence: Record<string, Evidence> = {};
  for (const field of definition.fields) {
    const r = resolved[field] ?? null;
    fields[field] = r ? r.value : null;
    if (r) evidence[field] = r.evidence;
  }
  return { type: name, fields, evidence };
}
