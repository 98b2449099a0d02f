import { applyProfile } from './profiles/apply-profile.js';
import type { ProfileName, ProfileOptions, ProfileRequest } from './profiles/profile-model.js';
import type { JsonObject, StructuredData, StructuredSources } from './structured-data-model.js';

/** The `json` format: the page type, its profile fields, and every structured-data source as read. */
export interface JsonFormatOutput {
  type: ProfileName;
  fields: JsonObject;
  sources: StructuredSources;
}

export interface JsonFormatOptions extends ProfileOptions {
  /** Defaults to `auto`. */
  profile?: ProfileRequest;
}

export function buildJsonOutput(data: StructuredData, options: JsonFormatOptions = {}): JsonFormatOutput {
  const result = applyProfile(options.profile ?? 'auto', data, options);
  return { type: result.type, fields: result.fields, sources: data.sources };
}
