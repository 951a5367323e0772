// Who is who in an organisation: the member's role, read from the database on every call (a member taken
// out or demoted loses the access at once), and the refusals, which never tell a stranger whether an
// organisation exists (a non-member gets the 404 of an unknown id).
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { isUuid } from '../db/uuid';
import { AppError } from '../http/errors';
import type { OrganizationRole } from '../keys';
import { organizationMembers, organizations } from './tables';
import { organizationsMessages } from './texts';

/** The person acting on the organisations' routes, with the address the journal keeps beside their id. */
export interface Person {
  userId: string;
  email: string;
}

export interface Membership {
  organizationId: string;
  name: string;
  role: OrganizationRole;
}

/** The caller's membership; 404 when there is none (or no such organisation), 403 when the role may not. */
export async function requireMember(
  db: Executor,
  organizationId: string,
  userId: string,
  roles?: readonly OrganizationRole[],
  refusal: string = organizationsMessages.membersForbidden,
): Promise<Membership> {
  const notFound = new AppError('not_found', organizationsMessages.organizationNotFound);
  if (!isUuid(organizationId)) throw notFound;
  const [row] = await db
    .select({ role: organizationMembers.role, name: organizations.name })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId)))
    .limit(1);
  if (!row) throw notFound;
  const role = row.role as OrganizationRole;
  if (roles && !roles.includes(role)) throw new AppError('forbidden', refusal);
  return { organizationId: organizationId.toLowerCase(), name: row.name, role };
}
