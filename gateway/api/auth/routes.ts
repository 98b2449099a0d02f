import type { Context } from 'koa';
import { TrawlError } from '../../../common/errors.js';
import { IDEMPOTENCY_KEY_MAX_CHARS, IP_LIMITS } from '../../../common/limits.js';
import { toCredits } from '../../../common/pricing.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { callOptions } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { presentCurrentUser, presentSession, presentUser, presentWelcomeStatus } from './presenters.js';
import {
  CheckEmailRequest,
  CurrentUser,
  EmailCheck,
  LegacyKeyStatus,
  LoginRequest,
  MeQuery,
  RegisterRequest,
  Registration,
  SessionToken,
  StatusOk,
  WelcomeBonusUnlock,
  WelcomeStatus,
} from './schemas.js';

/** Password hashing takes a good part of a second; these calls get more time than a plain read. */
const HASHING_TIMEOUT_MS = 15_000;
const READ_TIMEOUT_MS = 10_000;

const IDEMPOTENCY_KEY = /^[\x21-\x7e]+$/;

function idempotencyKeyError(message: string, issue: string): TrawlError {
  return new TrawlError('VALIDATION_ERROR', message, { fields: [{ field: 'Idempotency-Key', message: issue, code: issue }] });
}

/** The Idempotency-Key header: required, 1 to 255 printable ASCII characters. */
function idempotencyKeyOf(ctx: Context): string {
  const key = ctx.get('idempotency-key');
  if (!key) throw idempotencyKeyError('Send an Idempotency-Key header (any unique string, e.g. a UUID)', 'required');
  if (key.length > IDEMPOTENCY_KEY_MAX_CHARS || !IDEMPOTENCY_KEY.test(key)) {
    throw idempotencyKeyError(`Idempotency-Key: 1 to ${IDEMPOTENCY_KEY_MAX_CHARS} printable ASCII characters without spaces`, 'invalid');
  }
  return key;
}

/** Registration, login and the current user (SPEC 4.6); the welcome bonus; the legacy-key notice. */
export function authRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  const accounts = deps.controlPlane.accounts;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/auth/register',
      operationId: 'register',
      summary: 'Create a user, with a personal account and a session',
      description:
        'The personal account is credited with the welcome bonus: the full one, or a reduced one when another account signed up from the same client address or e-mail domain (free-mail providers excepted).',
      tags: ['Accounts'],
      auth: 'none',
      ipLimits: [IP_LIMITS.register],
      request: { body: RegisterRequest },
      responses: { 201: { description: 'The user and a session', schema: Registration } },
      errors: { 409: 'CONFLICT (the e-mail address is already registered)' },
      handler: async ({ ctx, body }) => {
        const res = await accounts.register(body, callOptions(ctx, HASHING_TIMEOUT_MS));
        ctx.state.trawl.accountId = res.accountId;
        ctx.status = 201;
        ctx.body = {
          ...presentSession(res.session),
          user: presentUser(res.user!),
          account_id: res.accountId,
          welcome_bonus: { credits: toCredits(res.welcomeBonusMicrocents), microcents: Number(res.welcomeBonusMicrocents), reduced: res.reducedBonus },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/auth/login',
      operationId: 'login',
      summary: 'Log in: a session token for an e-mail and password',
      tags: ['Accounts'],
      auth: 'none',
      ipLimits: [IP_LIMITS.login],
      request: { body: LoginRequest },
      responses: { 200: { description: 'A session token', schema: SessionToken } },
      errors: { 401: 'INVALID_CREDENTIALS (the same answer for an unknown e-mail and a wrong password)' },
      handler: async ({ ctx, body }) => {
        ctx.body = presentSession((await accounts.login(body, callOptions(ctx, HASHING_TIMEOUT_MS))).session);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/auth/check-email',
      operationId: 'checkEmail',
      summary: 'Whether an e-mail address is registered and has a password',
      tags: ['Accounts'],
      auth: 'none',
      ipLimits: [IP_LIMITS.checkEmailPerIp, IP_LIMITS.checkEmailPerEmail],
      request: { body: CheckEmailRequest },
      responses: { 200: { description: 'What is known of the address', schema: EmailCheck } },
      handler: async ({ ctx, body }) => {
        const res = await accounts.checkEmail(body, callOptions(ctx, READ_TIMEOUT_MS));
        ctx.body = { exists: res.exists, has_password: res.hasPassword };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/auth/me',
      operationId: 'getCurrentUser',
      summary: 'The current user, account balance, tier and organizations',
      description:
        "Takes an API key (the key's account and, for a personal account, its user) or a session token (the user, on their own account or on the organization named in X-Organization-Id).",
      tags: ['Accounts'],
      auth: 'either',
      request: { query: MeQuery },
      responses: { 200: { description: 'The current-user record', schema: CurrentUser } },
      errors: { 404: 'NOT_FOUND (X-Organization-Id names an organization the caller is not a member of)' },
      handler: async ({ ctx }) => {
        ctx.body = presentCurrentUser(await accounts.getCurrentUser({}, callOptions(ctx, READ_TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/auth/welcome-status',
      operationId: 'getWelcomeStatus',
      summary: 'Welcome-bonus status of the personal account',
      tags: ['Accounts'],
      auth: 'session',
      responses: { 200: { description: 'Reduced-bonus state and unlock eligibility', schema: WelcomeStatus } },
      handler: async ({ ctx }) => {
        ctx.body = presentWelcomeStatus(await accounts.getWelcomeStatus({}, callOptions(ctx, READ_TIMEOUT_MS)));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/auth/unlock-welcome-bonus',
      operationId: 'unlockWelcomeBonus',
      summary: 'Unlock the rest of a reduced welcome bonus',
      description:
        'Credits the full bonus minus the reduced one, once, to the personal account. Needs the header Idempotency-Key (1 to 255 printable ASCII characters): a repeat with the same key answers the same without crediting again.',
      tags: ['Accounts'],
      auth: 'session',
      responses: { 200: { description: 'What was credited', schema: WelcomeBonusUnlock } },
      errors: {
        400: 'VALIDATION_ERROR (Idempotency-Key missing or malformed)',
        402: 'DEPOSIT_REQUIRED (no deposit on the account yet)',
        409: 'WELCOME_BONUS_NOT_REDUCED (the account got the full bonus); WELCOME_BONUS_ALREADY_UNLOCKED (unlocked under another Idempotency-Key)',
      },
      handler: async ({ ctx }) => {
        const key = idempotencyKeyOf(ctx);
        const res = await accounts.unlockWelcomeBonus({ idempotencyKey: key }, callOptions(ctx, READ_TIMEOUT_MS));
        ctx.body = {
          unlocked_credits: toCredits(res.unlockedMicrocents),
          unlocked_microcents: Number(res.unlockedMicrocents),
          unlocked_at: res.unlockedAt,
          balance_after_microcents: Number(res.balanceAfterMicrocents),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/api-keys/legacy-status',
      operationId: 'getLegacyKeyStatus',
      summary: 'Whether the account holds legacy keys',
      description:
        'Legacy keys are live keys no signed-in user created: those the operator issued before accounts had users. Revoked keys do not count.',
      tags: ['Accounts'],
      auth: 'api_key',
      responses: { 200: { description: 'Legacy keys and whether the notice was shown', schema: LegacyKeyStatus } },
      handler: async ({ ctx }) => {
        const res = await accounts.getLegacyKeyStatus({}, callOptions(ctx, READ_TIMEOUT_MS));
        ctx.body = { has_legacy_keys: res.hasLegacyKeys, legacy_key_count: res.legacyKeyCount, notice_shown: res.noticeShown };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/api-keys/legacy-notice-shown',
      operationId: 'markLegacyNoticeShown',
      summary: 'Record that the legacy-key notice was shown',
      tags: ['Accounts'],
      auth: 'api_key',
      responses: { 200: { description: 'Recorded (repeating it changes nothing)', schema: StatusOk } },
      handler: async ({ ctx }) => {
        await accounts.markLegacyNoticeShown({}, callOptions(ctx, READ_TIMEOUT_MS));
        ctx.body = { status: 'ok' };
      },
    }),
  ];
}
