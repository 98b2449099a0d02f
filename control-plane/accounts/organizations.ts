import type pg from 'pg';
import { TrawlError } from '../../common/errors.js';
import { withTransaction } from '../billing/ledger.js';
import { normalizeEmail } from './users.js';
import { isUuid } from '../../common/ids.js';

export type MemberRole = 'owner' | 'admin' | 'member';

export interface OrganizationRecord {
  id: string;
  name: string;
  /** The caller's role in it. */
  role: MemberRole;
  accountId: string;
  memberCount: number;
  createdAt: Date;
}

export interface MemberRecord {
  userId: string;
  email: string;
  role: MemberRole;
  joinedAt: Date;
}

/** Another organization answers exactly like a missing one. */
function organizationNotFound(): TrawlError {
  return new TrawlError('NOT_FOUND', 'Organization not found');
}

function forbidden(message: string): TrawlError {
  return new TrawlError('FORBIDDEN', message);
}

const ORGANIZATION_COLUMNS = `o.id, o.name, m.role, o.account_id, o.created_at,
  (SELECT count(*)::int FROM organization_members c WHERE c.organization_id = o.id) AS member_count`;

type OrganizationRow = { id: string; name: string; role: MemberRole; account_id: string; created_at: Date; member_count: number };

function organizationOf(row: OrganizationRow): OrganizationRecord {
  return { id: row.id, name: row.name, role: row.role, accountId: row.account_id, memberCount: row.member_count, createdAt: row.created_at };
}

type MemberRow = { user_id: string; email: string; role: MemberRole; created_at: Date };

function memberOf(row: MemberRow): MemberRecord {
  return { userId: row.user_id, email: row.email, role: row.role, joinedAt: row.created_at };
}

/**
 * Organizations: an account of their own that members act on with
 * X-Organization-Id. The creator is the owner (one per organization, who
 * cannot be removed); owners add admins and members, admins add members;
 * owners remove anyone but themselves, admins remove members, and anyone but
 * the owner may leave.
 */
export function createOrganizations(pool: pg.Pool) {
  async function membership(userId: string, organizationId: string): Promise<OrganizationRecord> {
    if (!isUuid(organizationId)) throw organizationNotFound();
    const row = (
      await pool.query<OrganizationRow>(
        `SELECT ${ORGANIZATION_COLUMNS} FROM organizations o JOIN organization_members m ON m.organization_id = o.id
          WHERE o.id = $1 AND m.user_id = $2`,
        [organizationId, userId],
      )
    ).rows[0];
    if (!row) throw organizationNotFound();
    return organizationOf(row);
  }

  return {
    async create(userId: string, name: string): Promise<OrganizationRecord> {
      const id = await withTransaction(pool, async (client) => {
        const account = await client.query<{ id: string }>('INSERT INTO accounts (name) VALUES ($1) RETURNING id', [name]);
        const org = await client.query<{ id: string }>('INSERT INTO organizations (name, account_id, created_by) VALUES ($1, $2, $3) RETURNING id', [
          name,
          account.rows[0]!.id,
          userId,
        ]);
        const organizationId = org.rows[0]!.id;
        await client.query(`INSERT INTO organization_members (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [organizationId, userId]);
        return organizationId;
      });
      return membership(userId, id);
    },

    get: membership,

    async list(userId: string): Promise<OrganizationRecord[]> {
      const rows = await pool.query<OrganizationRow>(
        `SELECT ${ORGANIZATION_COLUMNS} FROM organizations o JOIN organization_members m ON m.organization_id = o.id
          WHERE m.user_id = $1 ORDER BY o.created_at, o.id`,
        [userId],
      );
      return rows.rows.map(organizationOf);
    },

    async members(userId: string, organizationId: string): Promise<MemberRecord[]> {
      await membership(userId, organizationId);
      const rows = await pool.query<MemberRow>(
        `SELECT m.user_id, u.email, m.role, m.created_at FROM organization_members m JOIN users u ON u.id = m.user_id
          WHERE m.organization_id = $1 ORDER BY m.created_at, u.email`,
        [organizationId],
      );
      return rows.rows.map(memberOf);
    },

    async addMember(userId: string, organizationId: string, email: string, role: 'admin' | 'member'): Promise<MemberRecord> {
      const mine = await membership(userId, organizationId);
      if (mine.role === 'member') throw forbidden('Only owners and admins add members');
      if (role === 'admin' && mine.role !== 'owner') throw forbidden('Only the owner adds admins');
      const user = (await pool.query<{ id: string; email: string }>('SELECT id, email FROM users WHERE lower(email) = $1', [normalizeEmail(email)]))
        .rows[0];
      if (!user) throw new TrawlError('NOT_FOUND', 'No user has this e-mail address; they need to register first');
      const added = await pool.query<{ created_at: Date }>(
        `INSERT INTO organization_members (organization_id, user_id, role) VALUES ($1, $2, $3)
         ON CONFLICT (organization_id, user_id) DO NOTHING RETURNING created_at`,
        [organizationId, user.id, role],
      );
      if (added.rowCount === 0) throw new TrawlError('CONFLICT', 'This user is already a member of the organization');
      return { userId: user.id, email: user.email, role, joinedAt: added.rows[0]!.created_at };
    },

    async removeMember(userId: string, organizationId: string, memberUserId: string): Promise<void> {
      const mine = await membership(userId, organizationId);
      const target = isUuid(memberUserId)
        ? (
            await pool.query<{ role: MemberRole }>('SELECT role FROM organization_members WHERE organization_id = $1 AND user_id = $2', [
              organizationId,
              memberUserId,
            ])
          ).rows[0]
        : undefined;
      if (!target) throw new TrawlError('NOT_FOUND', 'Member not found');
      if (target.role === 'owner') throw forbidden('The owner cannot be removed from the organization');
      const leaving = memberUserId === userId;
      const allowed = leaving || mine.role === 'owner' || (mine.role === 'admin' && target.role === 'member');
      if (!allowed) throw forbidden(mine.role === 'admin' ? 'Admins remove members only; the owner removes admins' : 'Only owners and admins remove members');
      await pool.query('DELETE FROM organization_members WHERE organization_id = $1 AND user_id = $2', [organizationId, memberUserId]);
    },
  };
}

export type Organizations = ReturnType<typeof createOrganizations>;
