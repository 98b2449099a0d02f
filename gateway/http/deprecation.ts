import type { Context } from 'koa';
import { z } from 'zod';
import type { Deprecation } from './route.js';

/** Where the deprecated routes are described, relative to the public base URL. */
export const DEPRECATED_ROUTES_DOC = '/api/v1/docs#deprecated-routes';

/** What every answer of a deprecated route carries in `warnings` (SPEC 9.5), as the OpenAPI document shows it. */
export const DeprecationWarning = z
  .object({ code: z.literal('DEPRECATED_ENDPOINT'), message: z.string(), documentation: z.string() })
  .meta({ id: 'DeprecationWarning' });
export type DeprecationWarning = z.infer<typeof DeprecationWarning>;

export function deprecationWarning(path: string, deprecation: Deprecation, publicBaseUrl: string): DeprecationWarning {
  return {
    code: 'DEPRECATED_ENDPOINT',
    message: `${path} is deprecated and will be removed on ${deprecation.sunset}; use ${deprecation.replacement}.`,
    documentation: `${publicBaseUrl}${DEPRECATED_ROUTES_DOC}`,
  };
}

/** Marks every answer of a deprecated route, errors included (SPEC 9.5): headers here, the warning in the body. */
export function setDeprecationHeaders(ctx: Context, deprecation: Deprecation, warning: DeprecationWarning): void {
  ctx.set('Deprecation', 'true');
  ctx.set('Sunset', deprecation.sunset);
  ctx.set('Link', `<${warning.documentation}>; rel="sunset"`);
}
