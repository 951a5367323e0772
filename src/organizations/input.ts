// What the organisations' routes accept: zod only, so the dashboard's forms check with the same rules.
import { z } from 'zod';
import { digitsInput, lineInput } from '../http/requisites-input';
import type { OrganizationRole } from '../keys';
import { unitsToNano } from '../money';
import { organizationsMessages as m } from './texts';

const optionalDigits = (count: number, message: string) => z.union([z.literal(''), digitsInput(count, message)]).default('');

const organizationFields = {
  name: lineInput(300, m.nameInvalid),
  inn: digitsInput([10, 12], m.innInvalid),
  kpp: z.union([z.literal(''), digitsInput(9, m.kppInvalid)]).default(''),
  ogrn: digitsInput([13, 15], m.ogrnInvalid),
  address: lineInput(500, m.addressInvalid),
  bankName: z.string({ error: m.bankNameInvalid }).trim().max(300, m.bankNameInvalid).default(''),
  bik: optionalDigits(9, m.bikInvalid),
  account: optionalDigits(20, m.accountInvalid),
  correspondentAccount: optionalDigits(20, m.correspondentAccountInvalid),
};

type OrganizationFields = z.output<z.ZodObject<typeof organizationFields>>;

function checkOrganization(r: OrganizationFields, ctx: z.RefinementCtx) {
  if (r.kpp && r.inn.length === 12) ctx.addIssue({ code: 'custom', message: m.kppOfSoleProprietor, path: ['kpp'] });
  if (!r.kpp && r.inn.length === 10) ctx.addIssue({ code: 'custom', message: m.kppRequired, path: ['kpp'] });
  const bank = [r.bankName, r.bik, r.account, r.correspondentAccount];
  if (bank.some(Boolean) && !bank.every(Boolean)) {
    const missing = (['bankName', 'bik', 'account', 'correspondentAccount'] as const).find((f) => !r[f])!;
    ctx.addIssue({ code: 'custom', message: m.bankIncomplete, path: [missing] });
  }
}

/**
 * The organisation's name and requisites. КПП: 9 digits for an organisation (10-digit ИНН), none for a sole
 * proprietor (12-digit ИНН). Bank details are optional, but given together (a счёт or акт prints all four).
 */
export const organizationInput = z.object(organizationFields).superRefine(checkOrganization);
export const updateOrganizationInput = z.object({ id: z.string({ error: m.idInvalid }).max(100, m.idInvalid), ...organizationFields }).superRefine(checkOrganization);
export type OrganizationInput = z.output<typeof organizationInput>;

/** keys/types.ts ORGANIZATION_ROLES, repeated so that this zod-only file (the page's forms use it) loads no server code. */
export const ROLES = ['owner', 'admin', 'developer', 'accountant'] as const satisfies readonly OrganizationRole[];
export const organizationRoleInput = z.enum(ROLES, { error: m.roleInvalid });

/** A member's monthly limit in currency units; null: none. Exact to 1e-9, as money is kept. */
export const memberSpendLimitInput = z
  .number({ error: m.spendLimitInvalid })
  .min(0, m.spendLimitInvalid)
  .max(1_000_000_000, m.spendLimitInvalid)
  .refine((v) => unitsToNano(v) !== null, m.spendLimitInvalid)
  .nullable();

/** Path ids: any text up to 100 characters; one that is no uuid names no organisation (404, as an unknown one). */
export const organizationIdInput = z.string({ error: m.idInvalid }).max(100, m.idInvalid);
export const memberIdInput = z.string({ error: m.userIdInvalid }).max(100, m.userIdInvalid);

export const inviteEmailInput = z
  .string({ error: m.emailInvalid })
  .trim()
  .toLowerCase()
  .max(254, m.emailInvalid)
  .meta({ format: 'email', example: 'developer@example.com' })
  .pipe(z.email({ error: m.emailInvalid }));

export const createInviteInput = z.object({
  id: organizationIdInput,
  email: inviteEmailInput,
  role: organizationRoleInput,
  spendLimit: memberSpendLimitInput.optional(),
});

export const inviteTokenInput = z.object({
  token: z.string({ error: m.tokenInvalid }).trim().min(1, m.tokenInvalid).max(200, m.tokenInvalid),
});

export const updateMemberInput = z.object({
  id: organizationIdInput,
  userId: memberIdInput,
  role: organizationRoleInput.optional(),
  spendLimit: memberSpendLimitInput.optional(),
});

export const KEY_CHOICES = ['revoke', 'transfer'] as const;
export const removeMemberInput = z.object({
  id: organizationIdInput,
  userId: memberIdInput,
  keys: z.enum(KEY_CHOICES, { error: m.keysChoiceInvalid }),
  transferTo: memberIdInput.optional(),
});
