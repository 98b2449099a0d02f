import { z } from 'zod';
import { EMAIL_MAX_CHARS, PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS } from '../../../common/limits.js';

export const Email = z
  .email({ message: 'must be an e-mail address' })
  .max(EMAIL_MAX_CHARS)
  .meta({ description: `An e-mail address, at most ${EMAIL_MAX_CHARS} characters; matched without regard to case.` });

const NewPassword = z
  .string()
  .min(PASSWORD_MIN_CHARS)
  .max(PASSWORD_MAX_CHARS)
  .meta({ description: `${PASSWORD_MIN_CHARS} to ${PASSWORD_MAX_CHARS} characters. Stored only as a scrypt hash.` });

export const RegisterRequest = z.object({ email: Email, password: NewPassword }).strict().meta({ id: 'RegisterRequest' });

export const LoginRequest = z
  .object({
    email: Email,
    // Any length is accepted here so a wrong password of any length gets the one INVALID_CREDENTIALS answer.
    password: z.string().min(1).max(PASSWORD_MAX_CHARS * 4),
  })
  .strict()
  .meta({ id: 'LoginRequest' });

export const CheckEmailRequest = z.object({ email: Email }).strict().meta({ id: 'CheckEmailRequest' });

export const SessionToken = z
  .object({
    access_token: z.string().meta({ description: 'Send as Authorization: Bearer <access_token> on session routes.' }),
    token_type: z.literal('bearer'),
    expires_at: z.string().meta({ description: 'ISO 8601; after it the token answers 401 SESSION_EXPIRED.' }),
  })
  .meta({ id: 'SessionToken' });

const UserFields = {
  id: z.uuid(),
  email: z.string(),
  role: z.enum(['user', 'admin']),
  created_at: z.string(),
};

export const User = z.object(UserFields).meta({ id: 'User' });

export const Registration = SessionToken.extend({
  user: User,
  account_id: z.uuid().meta({ description: "The user's personal account." }),
  welcome_bonus: z.object({
    credits: z.number(),
    microcents: z.number().int(),
    reduced: z.boolean().meta({ description: 'True when another account signed up from the same address or e-mail domain; see GET /api/v1/auth/welcome-status.' }),
  }),
}).meta({ id: 'Registration' });

export const EmailCheck = z.object({ exists: z.boolean(), has_password: z.boolean() }).meta({ id: 'EmailCheck' });

export const MeQuery = z
  .object({
    skip_pre_auth_rate_limit: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true')
      .meta({
        description:
          'Asks the gateway not to count this call against a per-address limit applied before authentication, for dashboards that poll. Accepted for compatibility: this route has no such limit, so it changes nothing.',
      }),
  })
  .strict();

const TierFields = {
  id: z.string().meta({ description: 'free, basic, growth, scale, high_volume or enterprise.' }),
  name: z.string(),
  requests_per_minute: z.number().int(),
  burst_per_second: z.number().int(),
  concurrent_requests: z.number().int(),
  effective_post_per_minute: z.number().int(),
};

const Membership = z.object({
  id: z.uuid(),
  name: z.string(),
  role: z.enum(['owner', 'admin', 'member']).nullable().meta({ description: "The user's role; null for an organization's own API key." }),
});

export const CurrentUser = z
  .object({
    user: z
      .object({ id: z.uuid().nullable(), email: z.string().nullable(), role: z.enum(['user', 'admin']).nullable(), created_at: z.string().nullable() })
      .meta({ description: "The user; every field is null for an API key of an organization's account, which no single user owns." }),
    account: z.object({
      id: z.uuid().meta({ description: 'The account the call acts on: the personal one, or the organization named in X-Organization-Id.' }),
      balance_microcents: z.number().int(),
      balance_credits: z.number(),
      balance_usd: z.number(),
      is_enterprise: z.boolean(),
    }),
    tier: z
      .object({
        ...TierFields,
        next_tier: z
          .object({
            ...TierFields,
            min_balance_usd: z.number(),
            balance_needed_microcents: z.number().int(),
            balance_needed_usd: z.number(),
          })
          .nullable()
          .meta({ description: 'The tier above and the balance still missing to reach it; null at the highest tier and for enterprise accounts.' }),
      })
      .meta({ description: 'The rate-limit tier the balance puts the account in (limits count per API key).' }),
    organizations: z.array(Membership),
    acting_organization: Membership.nullable().meta({ description: 'The organization this call acts for, if any.' }),
    credential: z.enum(['api_key', 'session']),
  })
  .meta({ id: 'CurrentUser' });

export const WelcomeStatus = z
  .object({
    has_reduced_bonus: z.boolean(),
    sibling_accounts: z.array(z.string()).meta({ description: 'Accounts sharing the sign-up address or e-mail domain, obfuscated ("j***@e***.com").' }),
    has_deposit: z.boolean().meta({ description: 'Whether any deposit other than the welcome bonus was made.' }),
    can_unlock: z.boolean(),
    granted_bonus_credits: z.number(),
    remaining_bonus_credits: z.number().meta({ description: 'What unlocking would credit: 0 once unlocked or without a reduced bonus.' }),
    unlocked_at: z.string().nullable(),
  })
  .meta({ id: 'WelcomeStatus' });

export const WelcomeBonusUnlock = z
  .object({
    unlocked_credits: z.number(),
    unlocked_microcents: z.number().int(),
    unlocked_at: z.string(),
    balance_after_microcents: z.number().int().meta({ description: 'The balance right after the unlock.' }),
  })
  .meta({ id: 'WelcomeBonusUnlock' });

export const LegacyKeyStatus = z
  .object({ has_legacy_keys: z.boolean(), legacy_key_count: z.number().int(), notice_shown: z.boolean() })
  .meta({ id: 'LegacyKeyStatus' });

export const StatusOk = z.object({ status: z.literal('ok') }).meta({ id: 'StatusOk' });
