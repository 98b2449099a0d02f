import { z } from 'zod';
import { ORGANIZATION_NAME_MAX_CHARS } from '../../../common/limits.js';
import { Email } from '../auth/schemas.js';

const Role = z.enum(['owner', 'admin', 'member']);

export const CreateOrganizationRequest = z
  .object({
    name: z
      .string()
      .min(1)
      .max(ORGANIZATION_NAME_MAX_CHARS)
      .refine((s) => s.trim() !== '', 'must not be blank'),
  })
  .strict()
  .meta({ id: 'CreateOrganizationRequest' });

export const Organization = z
  .object({
    id: z.uuid().meta({ description: 'Send as X-Organization-Id to act on the organization account.' }),
    name: z.string(),
    role: Role.meta({ description: "The caller's role." }),
    account_id: z.uuid().meta({ description: "The organization's own account: balance, keys and jobs." }),
    member_count: z.number().int(),
    created_at: z.string(),
  })
  .meta({ id: 'Organization' });

export const OrganizationList = z.object({ organizations: z.array(Organization), total: z.number().int() }).meta({ id: 'OrganizationList' });

export const Member = z
  .object({ user_id: z.uuid(), email: z.string(), role: Role, joined_at: z.string() })
  .meta({ id: 'OrganizationMember' });

export const MemberList = z.object({ members: z.array(Member), total: z.number().int() }).meta({ id: 'OrganizationMemberList' });

export const AddMemberRequest = z
  .object({
    email: Email.meta({ description: 'A registered user.' }),
    role: z.enum(['admin', 'member']).default('member').meta({ description: 'Only the owner adds admins.' }),
  })
  .strict()
  .meta({ id: 'AddMemberRequest' });

export const OrganizationIdParam = z.object({ organization_id: z.uuid().meta({ description: 'The organization.' }) });

export const MemberParams = OrganizationIdParam.extend({ user_id: z.uuid().meta({ description: 'The member.' }) });
