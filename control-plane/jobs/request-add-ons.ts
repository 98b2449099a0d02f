import type { JsonObject } from '@bufbuild/protobuf';
import { addOnsOf, addOnsPrice, type AddOn } from '../../common/pricing.js';

/** The SPEC 2.5 add-ons of a job, read from its recorded request (a scrape's mode and advanced options). */
export function requestAddOns(request: JsonObject | null | undefined): AddOn[] {
  const advanced = request?.['advanced'];
  const mode = request?.['mode'];
  return addOnsOf(typeof mode === 'string' ? mode : '', advanced && typeof advanced === 'object' && !Array.isArray(advanced) ? advanced : undefined);
}

export function requestAddOnsPrice(request: JsonObject | null | undefined): number {
  return addOnsPrice(requestAddOns(request));
}
