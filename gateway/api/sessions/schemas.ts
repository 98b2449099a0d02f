import { z } from 'zod';
import { MAX_STORED_SESSIONS } from '../../../common/limits.js';
import { CookieMap } from '../shared/fields.js';

/** A hostname: labels of letters, digits and hyphens (IDNs in their xn-- form). */
const Domain = z
  .string()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i, 'must be a hostname such as example.com')
  .transform((d) => d.toLowerCase())
  .meta({ description: 'The site the cookies belong to; scrapes of it and of its subdomains may use the session.' });

const FutureDateTime = z.iso
  .datetime({ offset: true })
  .refine((value) => new Date(value).getTime() > Date.now(), 'must be in the future')
  .meta({ description: 'RFC 3339 date-time in the future.' });

export const CreateSessionRequest = z
  .object({
    name: z.string().trim().min(1).max(100),
    domain: Domain,
    cookies: CookieMap.refine((map) => Object.keys(map).length > 0, 'at least one cookie'),
    expires_at: FutureDateTime.optional().meta({ description: 'When the session stops working; absent: it does not expire.' }),
  })
  .strict()
  .meta({ id: 'CreateSessionRequest' });

export const RefreshSessionRequest = z
  .object({
    cookies: CookieMap.refine((map) => Object.keys(map).length > 0, 'at least one cookie').optional().meta({ description: 'Replaces every cookie of the session.' }),
    expires_at: FutureDateTime.nullable().optional().meta({ description: 'A new expiry; null: the session no longer expires.' }),
  })
  .strict()
  .refine((b) => b.cookies !== undefined || b.expires_at !== undefined, 'send cookies, expires_at or both')
  .meta({ id: 'RefreshSessionRequest' });

export const SessionIdParam = z.object({ session_id: z.uuid().meta({ description: 'The session id (a UUID; anything else answers 400 VALIDATION_ERROR).' }) });

export const SessionListQuery = z
  .object({ status: z.enum(['active', 'expired', 'inactive']).optional().meta({ description: 'Only sessions in this state; absent: active and expired ones.' }) })
  .strict();

export const StoredSession = z
  .object({
    session_id: z.uuid(),
    name: z.string(),
    domain: z.string(),
    status: z.enum(['active', 'expired', 'inactive']).meta({ description: 'inactive: deleted.' }),
    cookie_names: z.array(z.string()).meta({ description: 'The cookies held; their values are never shown.' }),
    created_at: z.string(),
    updated_at: z.string(),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
  })
  .meta({ id: 'StoredSession' });

export const StoredSessionList = z
  .object({ sessions: z.array(StoredSession), total: z.number().int(), limit: z.literal(MAX_STORED_SESSIONS).meta({ description: 'Sessions an account keeps at once.' }) })
  .meta({ id: 'StoredSessionList' });
