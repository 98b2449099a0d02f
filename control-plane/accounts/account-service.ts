import type { DescMethod } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type pg from 'pg';
import type { BalanceTier } from '../../common/balance-tiers.js';
import { TrawlError } from '../../common/errors.js';
import { AccountService } from '../../proto/gen/trawl/v1/accounts_pb.js';
import { callerOf, sessionCallerOf, type CallAuth } from './caller.js';
import { currentUser } from './current-user.js';
import { legacyKeyStatus, markLegacyNoticeShown } from './legacy-keys.js';
import { createOrganizations, type MemberRecord, type OrganizationRecord } from './organizations.js';
import type { SessionTokens } from './session-tokens.js';
import { createUsers, type IssuedSession, type UserRecord, type Users } from './users.js';
import { unlockWelcomeBonus, welcomeStatus, type WelcomeBonusAmounts } from './welcome-bonus.js';

export interface AccountServiceDeps {
  pool: pg.Pool;
  sessionTokens: SessionTokens;
  welcomeBonus: WelcomeBonusAmounts;
}

const m = AccountService.method;

/** The credential each method takes (methodAuth in control-plane/main.ts). */
export const ACCOUNT_METHOD_AUTH: ReadonlyArray<[DescMethod, CallAuth]> = [
  [m.register, 'none'],
  [m.login, 'none'],
  [m.checkEmail, 'none'],
  [m.getCurrentUser, 'either'],
  [m.getWelcomeStatus, 'session'],
  [m.unlockWelcomeBonus, 'session'],
  [m.getLegacyKeyStatus, 'api_key'],
  [m.markLegacyNoticeShown, 'api_key'],
  [m.createOrganization, 'session'],
  [m.listOrganizations, 'session'],
  [m.getOrganization, 'session'],
  [m.listMembers, 'session'],
  [m.addMember, 'session'],
  [m.removeMember, 'session'],
];

/** The client address the gateway saw, forwarded in this header (absent for callers other than the gateway). */
const CLIENT_IP_HEADER = 'x-trawl-client-ip';

const presentUser = (user: UserRecord) => ({ id: user.id, email: user.email, role: user.role, createdAt: user.createdAt.toISOString() });
const presentSession = (session: IssuedSession) => ({ accessToken: session.token, expiresAt: session.expiresAt.toISOString() });
const presentTier = (tier: BalanceTier) => ({
  id: tier.id,
  name: tier.name,
  requestsPerMinute: tier.requestsPerMinute,
  burstPerSecond: tier.burstPerSecond,
  concurrentRequests: tier.concurrentRequests,
  effectivePostPerMinute: tier.effectivePostPerMinute,
});
const presentOrganization = (org: OrganizationRecord) => ({
  id: org.id,
  name: org.name,
  role: org.role,
  accountId: org.accountId,
  memberCount: org.memberCount,
  createdAt: org.createdAt.toISOString(),
});
const presentMember = (m: MemberRecord) => ({ userId: m.userId, email: m.email, role: m.role, joinedAt: m.joinedAt.toISOString() });

/** The personal account of a session's user: the welcome bonus belongs to it, whatever organization the call names. */
async function personalAccountOf(users: Users, ctx: HandlerContext): Promise<string> {
  const user = await users.byId(sessionCallerOf(ctx).userId);
  if (!user) throw new TrawlError('INVALID_SESSION_TOKEN', 'The session token is invalid');
  return user.accountId;
}

export function createAccountService(deps: AccountServiceDeps): ServiceImpl<typeof AccountService> {
  const users = createUsers(deps);
  const organizations = createOrganizations(deps.pool);
  return {
    async register(req, ctx) {
      const done = await users.register({ email: req.email, password: req.password, clientIp: ctx.requestHeader.get(CLIENT_IP_HEADER) });
      return {
        user: presentUser(done.user),
        session: presentSession(done.session),
        accountId: done.user.accountId,
        welcomeBonusMicrocents: BigInt(done.welcomeBonusMicrocents),
        reducedBonus: done.reducedBonus,
      };
    },

    async login(req) {
      return { session: presentSession(await users.login({ email: req.email, password: req.password })) };
    },

    async checkEmail(req) {
      return users.checkEmail(req.email);
    },

    async getCurrentUser(_req, ctx) {
      const record = await currentUser(deps.pool, users, callerOf(ctx));
      return {
        ...(record.user ? { user: presentUser(record.user) } : {}),
        account: {
          id: record.account.id,
          balanceMicrocents: BigInt(record.account.balanceMicrocents),
          isEnterprise: record.account.isEnterprise,
        },
        tier: presentTier(record.tier),
        ...(record.nextTier
          ? {
              nextTier: {
                tier: presentTier(record.nextTier.tier),
                minBalanceMicrocents: BigInt(record.nextTier.tier.minBalanceMicrocents),
                balanceNeededMicrocents: BigInt(record.nextTier.balanceNeededMicrocents),
              },
            }
          : {}),
        organizations: record.organizations.map((o) => ({ ...o, role: o.role ?? '' })),
        ...(record.actingOrganization ? { actingOrganization: { ...record.actingOrganization, role: record.actingOrganization.role ?? '' } } : {}),
        credential: record.credential,
      };
    },

    async getWelcomeStatus(_req, ctx) {
      const status = await welcomeStatus(deps.pool, await personalAccountOf(users, ctx));
      return {
        hasReducedBonus: status.hasReducedBonus,
        siblingAccounts: status.siblingAccounts,
        hasDeposit: status.hasDeposit,
        canUnlock: status.canUnlock,
        remainingBonusMicrocents: BigInt(status.remainingMicrocents),
        grantedBonusMicrocents: BigInt(status.grantedMicrocents),
        ...(status.unlockedAt ? { unlockedAt: status.unlockedAt.toISOString() } : {}),
      };
    },

    async unlockWelcomeBonus(req, ctx) {
      if (!req.idempotencyKey) throw new TrawlError('VALIDATION_ERROR', 'Send an Idempotency-Key header');
      const result = await unlockWelcomeBonus(deps.pool, await personalAccountOf(users, ctx), req.idempotencyKey);
      return {
        unlockedMicrocents: BigInt(result.unlockedMicrocents),
        unlockedAt: result.unlockedAt.toISOString(),
        balanceAfterMicrocents: BigInt(result.balanceAfterMicrocents),
      };
    },

    async getLegacyKeyStatus(_req, ctx) {
      const status = await legacyKeyStatus(deps.pool, callerOf(ctx).accountId);
      return { hasLegacyKeys: status.count > 0, legacyKeyCount: status.count, noticeShown: status.noticeShown };
    },

    async markLegacyNoticeShown(_req, ctx) {
      await markLegacyNoticeShown(deps.pool, callerOf(ctx).accountId);
      return {};
    },

    async createOrganization(req, ctx) {
      const name = req.name.trim();
      if (!name) throw new TrawlError('VALIDATION_ERROR', 'name: must not be blank');
      return { organization: presentOrganization(await organizations.create(sessionCallerOf(ctx).userId, name)) };
    },

    async listOrganizations(_req, ctx) {
      return { organizations: (await organizations.list(sessionCallerOf(ctx).userId)).map(presentOrganization) };
    },

    async getOrganization(req, ctx) {
      return { organization: presentOrganization(await organizations.get(sessionCallerOf(ctx).userId, req.organizationId)) };
    },

    async listMembers(req, ctx) {
      return { members: (await organizations.members(sessionCallerOf(ctx).userId, req.organizationId)).map(presentMember) };
    },

    async addMember(req, ctx) {
      const role = req.role || 'member';
      if (role !== 'admin' && role !== 'member') throw new TrawlError('VALIDATION_ERROR', 'role: must be admin or member');
      return { member: presentMember(await organizations.addMember(sessionCallerOf(ctx).userId, req.organizationId, req.email, role)) };
    },

    async removeMember(req, ctx) {
      await organizations.removeMember(sessionCallerOf(ctx).userId, req.organizationId, req.userId);
      return {};
    },
  };
}
