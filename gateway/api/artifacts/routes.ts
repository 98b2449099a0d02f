import { z } from 'zod';
import { ARTIFACT_TYPES } from '../../../common/artifacts.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';

const ArtifactParams = z.object({
  name: z.string().max(64).meta({ description: 'The file name at the end of a screenshot_url or pdf_url.' }),
});

/** Screenshots and PDFs of rendered pages (SPEC 2.3, 8.4). */
export function artifactRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/artifacts/{name}',
      operationId: 'getArtifact',
      summary: 'A screenshot or PDF of a rendered page',
      description:
        'Served for 24 hours at the URL a scrape result gives in screenshot_url or pdf_url. The URL holds 192 random bits and is ' +
        'the only credential: share it only with whoever may see the page.',
      tags: ['Artifacts'],
      auth: 'none',
      request: { params: ArtifactParams },
      responses: { 200: { description: 'The file', binaryMediaTypes: Object.values(ARTIFACT_TYPES) } },
      errors: { 404: 'NOT_FOUND (no such file, or its 24 hours have passed)' },
      handler: async ({ ctx, params }) => {
        const res = await deps.controlPlane.artifacts.get({ name: params.name }, callOptions(ctx, 10_000));
        ctx.type = res.contentType;
        ctx.set('Cache-Control', 'private');
        ctx.body = Buffer.from(res.data.buffer, res.data.byteOffset, res.data.byteLength);
      },
    }),
  ];
}
