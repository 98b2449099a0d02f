import type { Context } from 'koa';
import type { z } from 'zod';
import type { TrawlError } from '../../common/errors.js';
import type { IpLimit } from '../../common/limits.js';
import type { BodyType } from './form-body.js';

/**
 * Who may call a route. `api_key` needs X-API-Key; `session` needs
 * `Authorization: Bearer <token>` (a dashboard session); `either` takes one
 * of the two. The gateway only checks that a credential is present; the
 * control plane validates it.
 */
export type AuthKind = 'none' | 'api_key' | 'session' | 'either';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HeaderDoc {
  description: string;
  type: 'string' | 'number' | 'integer';
}

/** An answer that is not the error envelope (success, or a probe's own 503 shape). */
export interface ResponseDoc {
  description: string;
  /** The JSON answer; absent for a route that answers only with a file (binaryMediaTypes). */
  schema?: z.ZodType;
  headers?: Record<string, HeaderDoc>;
  /** Other media types the route may answer with instead (a download as CSV or XML), documented as text. */
  textMediaTypes?: readonly string[];
  /** Media types of a file answer (an image, a PDF), documented as binary. */
  binaryMediaTypes?: readonly string[];
}

/** A route on its way out: every answer carries Deprecation, Sunset and Link, and a DEPRECATED_ENDPOINT warning. */
export interface Deprecation {
  /** HTTP date of removal. */
  sunset: string;
  /** What to call instead, e.g. "POST /api/v1/scrape". */
  replacement: string;
}

export interface RequestSchemas {
  body?: z.ZodType;
  params?: z.ZodType;
  query?: z.ZodType;
}

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

/** What a handler receives: the request already authenticated for presence, parsed and validated. */
export interface RouteInput<R extends RequestSchemas> {
  ctx: Context;
  body: Parsed<R['body']>;
  params: Parsed<R['params']>;
  query: Parsed<R['query']>;
  /** The exact body bytes (after decompression), for routes that set keepRawBody; undefined otherwise or without a body. */
  rawBody: Buffer | undefined;
}

/**
 * One row of the route table: everything the gateway knows about a route.
 * Registration, authentication presence, body limits, validation, error
 * mapping, request-log labels and the OpenAPI document are all derived from it.
 */
export interface RouteSpec<R extends RequestSchemas = RequestSchemas> {
  method: HttpMethod;
  /** OpenAPI form: /api/v1/jobs/{job_id}. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: AuthKind;
  /** Largest accepted request body in bytes (after decompression); routes with a body schema only. */
  bodyLimitBytes?: number;
  request?: R;
  /** Per-client-address limits (SPEC 8.2) checked before the body is read; see common/limits.ts IP_LIMITS. */
  ipLimits?: readonly IpLimit[];
  /** Hands the handler the exact body bytes too (input.rawBody), e.g. to check a signature made over them. */
  keepRawBody?: boolean;
  /** Media types the body may come in (default JSON only); `form` is application/x-www-form-urlencoded, parsed into string fields. */
  bodyTypes?: readonly BodyType[];
  /** Top-level body fields that never reach Postgres and so may hold U+0000. */
  nulAllowedFields?: readonly string[];
  responses: Partial<Record<number, ResponseDoc>>;
  /** Error-envelope answers the handler itself may give, by status: the codes and when. */
  errors?: Partial<Record<number, string>>;
  deprecation?: Deprecation;
  /**
   * A liveness or readiness probe, which load balancers and orchestrators call every few seconds
   * without a credential: answered like any route, but not recorded in request logs (analytics).
   */
  probe?: boolean;
  /** False for routes served but left out of the OpenAPI document (the document itself). */
  documented?: boolean;
  /**
   * Answers any failure of the route, its request checks included, as another error
   * (the OAuth token endpoint speaks RFC 6749's codes); documented with errorSchema.
   */
  errorAs?(err: TrawlError, ctx: Context): TrawlError;
  /** The schema of this route's error answers in the OpenAPI document (default: the error envelope). */
  errorSchema?: z.ZodType;
  /** Extra top-level fields for the error envelope of a failed call (e.g. billing of a refunded job). */
  errorFields?(err: TrawlError, ctx: Context): Record<string, unknown> | undefined;
  handler(input: RouteInput<R>): Promise<void> | void;
}

/** Any route, with its request types erased: what the table holds. */
export type AnyRoute = RouteSpec<any>;

export function defineRoute<R extends RequestSchemas>(spec: RouteSpec<R>): AnyRoute {
  return spec as AnyRoute;
}

/** The label request logs carry for a route: "GET /api/v1/jobs/{job_id}". */
export function routeLabel(route: Pick<AnyRoute, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}
