// A person's role in an organisation, read from the database on every dashboard request that names one
// (X-Conduit-Organization): taking a member out applies to tokens already issued. The dashboard path is not
// the /v1 hot path, which never asks this.
import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client';
import type { OrganizationRole } from '../keys';
import { organizationMembers } from '../organizations/tables';

export interface Memberships {
  /** The member's role, or null when `userId` is no member of `organizationId` (or there is no such organisation). */
  roleOf(organizationId: string, userId: string): Promise<OrganizationRole | null>;
}

export function createMemberships(db: Database): Memberships {
  return {
    async roleOf(organizationId, userId) {
      const [row] = await db
        .select({ role: organizationMembers.role })
        .from(organizationMembers)
        .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId)))
        .limit(1);
      return (row?.role as OrganizationRole | undefined) ?? null;
    },
  };
}
