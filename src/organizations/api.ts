// The organisations feature's API: the organisations, their members and their invitations; built from the
// base, the keys (a leaving member's keys) and the gateway's billing (balances as /api/balance shows them).
import { eq } from 'drizzle-orm';
import { users } from '../accounts/tables';
import { gatewaySlot } from '../gateway';
import { AppError } from '../http/errors';
import { keysSlot } from '../keys';
import { createMailer } from '../mail/mailer';
import { type Base, defineSlot, type Use } from '../platform/feature';
import type { Person } from './access';
import { createInvites } from './invites';
import { createMembers } from './members';
import { createOrganizationService } from './service';
import { organizationsMessages } from './texts';

export function createOrganizationsApi({ config, db, logger }: Base, use: Use) {
  const billing = use(gatewaySlot).billing;
  const organizations = createOrganizationService({ db, balanceNano: (id) => billing.balanceNano(id), currency: config.balanceCurrency });
  const members = createMembers({ db, keys: use(keysSlot).keys });
  const invites = createInvites({
    db,
    mailer: config.smtp ? createMailer(config.smtp) : null,
    logger,
    publicBaseUrl: config.publicBaseUrl,
    organizations,
  });
  /** The signed-in person with their address (the journal keeps it; an invitation is accepted by it). */
  async function person(userId: string): Promise<Person> {
    const [row] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
    if (!row) throw new AppError('not_found', organizationsMessages.memberNotFound);
    return { userId, email: row.email };
  }
  return { organizations, members, invites, person };
}

export type OrganizationsApi = ReturnType<typeof createOrganizationsApi>;
export const organizationsSlot = defineSlot<OrganizationsApi>('organizations');
