import type { Member as MemberMessage, Organization as OrganizationMessage } from '../../../proto/gen/trawl/v1/accounts_pb.js';
import type { ControlPlane } from '../../control-plane-client.js';
import { StatusOk } from '../auth/schemas.js';
import { callOptions } from '../../http/call-options.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { AddMemberRequest, CreateOrganizationRequest, MemberList, MemberParams, Member, Organization, OrganizationIdParam, OrganizationList } from './schemas.js';

const TIMEOUT_MS = 10_000;
const NOT_A_MEMBER = "NOT_FOUND (no such organization, or the caller is not a member: both answer alike)";

function presentOrganization(org: OrganizationMessage) {
  return { id: org.id, name: org.name, role: org.role, account_id: org.accountId, member_count: org.memberCount, created_at: org.createdAt };
}

function presentMember(m: MemberMessage) {
  return { user_id: m.userId, email: m.email, role: m.role, joined_at: m.joinedAt };
}

/**
 * Organizations and their members (session routes). An organization has an
 * account of its own; members act on it by sending X-Organization-Id.
 */
export function organizationRoutes(deps: { controlPlane: ControlPlane }): AnyRoute[] {
  const accounts = deps.controlPlane.accounts;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/organizations',
      operationId: 'createOrganization',
      summary: 'Create an organization (the caller becomes its owner)',
      tags: ['Organizations'],
      auth: 'session',
      request: { body: CreateOrganizationRequest },
      responses: { 201: { description: 'The organization', schema: Organization } },
      handler: async ({ ctx, body }) => {
        ctx.status = 201;
        ctx.body = presentOrganization((await accounts.createOrganization({ name: body.name }, callOptions(ctx, TIMEOUT_MS))).organization!);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/organizations',
      operationId: 'listOrganizations',
      summary: 'The organizations the caller belongs to',
      tags: ['Organizations'],
      auth: 'session',
      responses: { 200: { description: 'Organizations, oldest first', schema: OrganizationList } },
      handler: async ({ ctx }) => {
        const { organizations } = await accounts.listOrganizations({}, callOptions(ctx, TIMEOUT_MS));
        ctx.body = { organizations: organizations.map(presentOrganization), total: organizations.length };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/organizations/{organization_id}',
      operationId: 'getOrganization',
      summary: 'An organization',
      tags: ['Organizations'],
      auth: 'session',
      request: { params: OrganizationIdParam },
      responses: { 200: { description: 'The organization', schema: Organization } },
      errors: { 404: NOT_A_MEMBER },
      handler: async ({ ctx, params }) => {
        const { organization } = await accounts.getOrganization({ organizationId: params.organization_id }, callOptions(ctx, TIMEOUT_MS));
        ctx.body = presentOrganization(organization!);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/organizations/{organization_id}/members',
      operationId: 'listOrganizationMembers',
      summary: "An organization's members",
      tags: ['Organizations'],
      auth: 'session',
      request: { params: OrganizationIdParam },
      responses: { 200: { description: 'Members, in the order they joined', schema: MemberList } },
      errors: { 404: NOT_A_MEMBER },
      handler: async ({ ctx, params }) => {
        const { members } = await accounts.listMembers({ organizationId: params.organization_id }, callOptions(ctx, TIMEOUT_MS));
        ctx.body = { members: members.map(presentMember), total: members.length };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/organizations/{organization_id}/members',
      operationId: 'addOrganizationMember',
      summary: 'Add a registered user to an organization (owners and admins)',
      tags: ['Organizations'],
      auth: 'session',
      request: { params: OrganizationIdParam, body: AddMemberRequest },
      responses: { 201: { description: 'The new member', schema: Member } },
      errors: {
        403: 'FORBIDDEN (members cannot add; only the owner adds admins)',
        404: `${NOT_A_MEMBER}; NOT_FOUND (no user has the e-mail address)`,
        409: 'CONFLICT (already a member)',
      },
      handler: async ({ ctx, params, body }) => {
        ctx.status = 201;
        const { member } = await accounts.addMember({ organizationId: params.organization_id, email: body.email, role: body.role }, callOptions(ctx, TIMEOUT_MS));
        ctx.body = presentMember(member!);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/organizations/{organization_id}/members/{user_id}',
      operationId: 'removeOrganizationMember',
      summary: 'Remove a member, or leave',
      description: 'Owners remove anyone but themselves, admins remove members, anyone but the owner may remove themselves.',
      tags: ['Organizations'],
      auth: 'session',
      request: { params: MemberParams },
      responses: { 200: { description: 'Removed', schema: StatusOk } },
      errors: { 403: 'FORBIDDEN (not allowed to remove this member; the owner cannot be removed)', 404: `${NOT_A_MEMBER}; NOT_FOUND (no such member)` },
      handler: async ({ ctx, params }) => {
        await accounts.removeMember({ organizationId: params.organization_id, userId: params.user_id }, callOptions(ctx, TIMEOUT_MS));
        ctx.body = { status: 'ok' };
      },
    }),
  ];
}
