// Requisites for the closing documents: the operator's company (one row, changed by an operator and
// audited like every admin action) and, optionally, the customer's own company: name, ИНН, КПП, address.
import { eq } from 'drizzle-orm';
import { recordAudit, type AuditActor, type JsonObject } from '../admin';
import type { Database } from '../db/client';
import { customerRequisites, operatorRequisites } from './tables';
import type { CustomerRequisitesInput, OperatorRequisitesInput } from './input';

export type OperatorRequisites = OperatorRequisitesInput & { updatedAt: string };
export type CustomerRequisites = CustomerRequisitesInput;
/** What an organisation adds to its requisites (organizations/): ОГРН and its bank; empty strings when not given. */
export interface CustomerBankDetails {
  ogrn: string;
  bankName: string;
  bik: string;
  account: string;
  correspondentAccount: string;
}

const FIELDS = [
  'companyName',
  'inn',
  'kpp',
  'ogrn',
  'address',
  'bankName',
  'bik',
  'account',
  'correspondentAccount',
  'vatNote',
  'vatRate',
  'closingDocuments',
  'updStatus',
  'directorName',
  'accountantName',
] as const;

function fieldsOf(row: OperatorRequisitesInput): JsonObject {
  return Object.fromEntries(FIELDS.map((f) => [f, row[f]]));
}

export function createRequisites(db: Database) {
  async function operator(): Promise<OperatorRequisites | null> {
    const [row] = await db.select().from(operatorRequisites).where(eq(operatorRequisites.id, 1)).limit(1);
    if (!row) return null;
    const { id: _id, updatedAt, ...fields } = row;
    // The two settings' columns are text and integer; the input's checks are all that ever writes them.
    return { ...(fields as OperatorRequisitesInput), updatedAt: updatedAt.toISOString() };
  }

  return {
    operator,

    /** Sets the operator's requisites; the audit row (before and after) commits with them. */
    async putOperator(actor: AuditActor, input: OperatorRequisitesInput): Promise<OperatorRequisites> {
      await db.transaction(async (tx) => {
        const [before] = await tx.select().from(operatorRequisites).where(eq(operatorRequisites.id, 1)).for('update');
        const values = { ...input, updatedAt: new Date() };
        await tx
          .insert(operatorRequisites)
          .values({ id: 1, ...values })
          .onConflictDoUpdate({ target: operatorRequisites.id, set: values });
        await recordAudit(tx, actor, {
          action: 'requisites.update',
          targetType: 'requisites',
          targetId: null,
          before: before ? fieldsOf(before as OperatorRequisitesInput & typeof before) : null,
          after: fieldsOf(input),
        });
      });
      return (await operator())!;
    },

    async customer(userId: string): Promise<CustomerRequisites> {
      const [row] = await db.select().from(customerRequisites).where(eq(customerRequisites.userId, userId)).limit(1);
      return { companyName: row?.companyName ?? '', inn: row?.inn ?? '', kpp: row?.kpp ?? '', address: row?.address ?? '' };
    },

    /** The customer's requisites with ОГРН and bank details, as a счёт prints the buyer. */
    async customerForDocuments(userId: string): Promise<CustomerRequisites & CustomerBankDetails> {
      const [row] = await db.select().from(customerRequisites).where(eq(customerRequisites.userId, userId)).limit(1);
      return {
        companyName: row?.companyName ?? '',
        inn: row?.inn ?? '',
        kpp: row?.kpp ?? '',
        address: row?.address ?? '',
        ogrn: row?.ogrn ?? '',
        bankName: row?.bankName ?? '',
        bik: row?.bik ?? '',
        account: row?.account ?? '',
        correspondentAccount: row?.correspondentAccount ?? '',
      };
    },

    async putCustomer(userId: string, input: CustomerRequisitesInput): Promise<CustomerRequisites> {
      const values = { ...input, updatedAt: new Date() };
      await db
        .insert(customerRequisites)
        .values({ userId, ...values })
        .onConflictDoUpdate({ target: customerRequisites.userId, set: values });
      return { companyName: input.companyName, inn: input.inn, kpp: input.kpp, address: input.address };
    },
  };
}

export type Requisites = ReturnType<typeof createRequisites>;
