import { defineRoute, type AnyRoute } from '../../http/route.js';
import { renderReferencePage } from '../../openapi/reference-page.js';
import { z } from 'zod';

/** The OpenAPI document and the reference page rendered from it; neither is listed in the document itself. */
export function docsRoutes(openapi: Record<string, unknown>): AnyRoute[] {
  const referencePage = renderReferencePage(openapi);
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/openapi.json',
      operationId: 'openapi',
      summary: 'The OpenAPI 3.1 document',
      tags: ['Docs'],
      auth: 'none',
      documented: false,
      responses: { 200: { description: 'The document', schema: z.record(z.string(), z.unknown()) } },
      handler: ({ ctx }) => {
        ctx.body = openapi;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/docs',
      operationId: 'docs',
      summary: 'The API reference page',
      tags: ['Docs'],
      auth: 'none',
      documented: false,
      responses: { 200: { description: 'HTML', schema: z.string() } },
      handler: ({ ctx }) => {
        ctx.type = 'text/html';
        ctx.body = referencePage;
      },
    }),
  ];
}
