// Closing documents (акт, УПД) issued once per account and Moscow month, and never changed afterwards. Issuing
// freezes everything the PDF prints — the lines and amounts, both parties' requisites, the НДС — in the row's
// `facts`; the PDF is drawn from them alone, so the operator changing their requisites, prices or texts later
// changes no issued document. Numbers run 1, 2, 3 … per calendar year of the document's date, across акты and
// УПД, taken under a transaction-scoped advisory lock (like invoices.ts). A correction is a new document with a
// new number naming the old one, which is marked superseded — the only change an issued row ever sees.
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { users } from '../accounts/tables';
import { recordAudit, type AuditActor } from '../admin';
import type { Database } from '../db/client';
import { rowsOf } from '../db/client';
import { AppError } from '../http/errors';
import { organizations } from '../organizations/tables';
import { roundToKopecks } from './amounts';
import type { Documents } from './documents';
import type { OperatorRequisites } from './requisites';
import { closingDocuments, customerRequisites } from './tables';
import { closingTexts, documentTexts as T, monthTitle, operationLabel, requestsText } from './texts';
import { moscowDay } from './moscow';

export type ClosingKind = 'act' | 'upd';
export type ClosingStatus = 'issued' | 'superseded';

/** The operator as the document names them, at issue. */
export type ClosingSupplier = Omit<OperatorRequisites, 'updatedAt'>;

/** The customer as the document names them, at issue: a company's requisites, or the account's e-mail. */
export interface ClosingCustomer {
  companyName: string;
  inn: string;
  kpp: string;
  ogrn: string;
  address: string;
  bankName: string;
  bik: string;
  account: string;
  correspondentAccount: string;
  /** The person's sign-in address; empty for an organisation (its account has no real one). */
  email: string;
}

export interface ClosingLine {
  /** The line's text as printed («Запросы к моделям через API, октябрь 2026 (3 запроса)»). */
  name: string;
  requests: number;
  /** In whole kopecks (as nano-units), as a decimal string: JSON has no bigint. НДС included. */
  amountNano: string;
  /** The НДС the amount includes, in whole kopecks; "0" without НДС. */
  vatNano: string;
}

/** Everything an issued document prints: frozen at issue in closing_documents.facts. */
export interface ClosingFacts {
  kind: ClosingKind;
  number: number;
  /** The document's date, YYYY-MM-DD (Moscow). */
  date: string;
  month: string;
  from: string;
  to: string;
  currency: string;
  lines: ClosingLine[];
  amountNano: string;
  vatRate: number | null;
  vatNano: string;
  supplier: ClosingSupplier;
  customer: ClosingCustomer;
  /** A УПД's status box. */
  updStatus: 1 | 2 | null;
  /** The document this one corrects. */
  corrects: { kind: ClosingKind; number: number; date: string } | null;
}

export interface ClosingDocument {
  id: string;
  kind: ClosingKind;
  year: number;
  number: number;
  userId: string;
  month: string;
  date: string;
  amountNano: bigint;
  vatNano: bigint;
  status: ClosingStatus;
  corrects: string | null;
  issuedAt: Date;
  facts: ClosingFacts;
}

const fromRow = (row: typeof closingDocuments.$inferSelect): ClosingDocument => ({
  id: row.id,
  kind: row.kind as ClosingKind,
  year: row.year,
  number: row.number,
  userId: row.userId,
  month: row.month,
  date: row.date,
  amountNano: row.amountNano,
  vatNano: row.vatNano,
  status: row.status as ClosingStatus,
  corrects: row.corrects,
  issuedAt: row.issuedAt,
  facts: row.facts as ClosingFacts,
});

/** The kinds a month gets under the operator's setting. */
export function kindsOf(setting: ClosingSupplier['closingDocuments']): ClosingKind[] {
  return setting === 'act_and_upd' ? ['act', 'upd'] : setting === 'upd' ? ['upd'] : ['act'];
}

/** НДС included in `amountNano` at `rate` percent, in whole kopecks: amount × rate / (100 + rate). */
export function vatIncluded(amountNano: bigint, rate: number | null): bigint {
  if (!rate) return 0n;
  const kopecks = roundToKopecks(amountNano);
  const r = BigInt(rate);
  const vat = (kopecks * r * 2n + (100n + r)) / ((100n + r) * 2n);
  return vat * 10_000_000n;
}

/** The УПД's status: the operator's choice, else 1 for a VAT payer (it is a счёт-фактура too) and 2 otherwise. */
export const updStatusOf = (s: ClosingSupplier): 1 | 2 => (s.updStatus === 1 || s.updStatus === 2 ? s.updStatus : s.vatRate === null ? 2 : 1);

/** The UUID text form; anything else is no document's id (and would be a database error). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isDocumentId = (id: string) => UUID.test(id);

const NUMBER_LOCK = 'conduit.closing_documents.number';

export interface ClosingDeps {
  db: Database;
  documents: Documents;
  operator(): Promise<OperatorRequisites | null>;
  currency: string;
  supportContact: string | undefined;
}

export function createClosingDocuments({ db, documents, operator, currency, supportContact }: ClosingDeps) {
  async function supplierNow(): Promise<ClosingSupplier> {
    const s = await operator();
    if (!s) throw new AppError('conflict', closingTexts.requisitesMissing(supportContact));
    const { updatedAt: _updatedAt, ...supplier } = s;
    return supplier;
  }

  /** The customer's requisites now: an organisation's from its row and name, a person's with their e-mail. */
  async function customerNow(userId: string): Promise<ClosingCustomer> {
    const [row] = await db
      .select({ kind: users.kind, email: users.email, orgName: organizations.name, r: customerRequisites })
      .from(users)
      .leftJoin(customerRequisites, eq(customerRequisites.userId, users.id))
      .leftJoin(organizations, eq(organizations.id, users.id))
      .where(eq(users.id, userId))
      .limit(1);
    const r = row?.r;
    const organization = row?.kind === 'organization';
    return {
      companyName: r?.companyName || (organization ? (row?.orgName ?? '') : ''),
      inn: r?.inn ?? '',
      kpp: r?.kpp ?? '',
      ogrn: r?.ogrn ?? '',
      address: r?.address ?? '',
      bankName: r?.bankName ?? '',
      bik: r?.bik ?? '',
      account: r?.account ?? '',
      correspondentAccount: r?.correspondentAccount ?? '',
      email: organization ? '' : (row?.email ?? ''),
    };
  }

  /** The facts of `userId`'s `month` as they are now, without number and date (issue() adds them). */
  async function factsNow(userId: string, month: string, kind: ClosingKind, supplier: ClosingSupplier, now: Date) {
    const [facts, customer] = await Promise.all([documents.month(userId, month, now), customerNow(userId)]);
    const lines: ClosingLine[] = facts.services.map((s) => {
      const amount = roundToKopecks(s.amountNano) * 10_000_000n;
      return {
        name: T.actLine(operationLabel(s.kind, -s.amountNano), monthTitle(month), requestsText(s.requests)),
        requests: s.requests,
        amountNano: String(amount),
        vatNano: String(vatIncluded(amount, supplier.vatRate)),
      };
    });
    // The totals are the sums of the lines, so the акт's НДС and the УПД's columns agree to the kopeck.
    const amountNano = lines.reduce((sum, line) => sum + BigInt(line.amountNano), 0n);
    const vatNano = lines.reduce((sum, line) => sum + BigInt(line.vatNano), 0n);
    return {
      kind,
      month,
      from: facts.from,
      to: facts.to,
      currency,
      lines,
      amountNano: String(amountNano),
      vatRate: supplier.vatRate,
      vatNano: String(vatNano),
      supplier,
      customer,
      updStatus: kind === 'upd' ? updStatusOf(supplier) : null,
    };
  }

  type Draft = Awaited<ReturnType<typeof factsNow>>;

  /**
   * Numbers and stores one document in `tx` (which holds the number lock). Returns null when `userId` already
   * has an issued document of this kind for the month (a second run, or another instance, got there first).
   */
  async function insert(
    tx: Parameters<Parameters<Database['transaction']>[0]>[0],
    userId: string,
    draft: Draft,
    date: string,
    corrects: ClosingDocument | null,
  ): Promise<ClosingDocument | null> {
    const year = Number(date.slice(0, 4));
    const [taken] = rowsOf<{ next: number }>(await tx.execute(sql`select coalesce(max(number), 0) + 1 as next from closing_documents where year = ${year}`));
    const number = Number(taken!.next);
    const facts: ClosingFacts = {
      ...draft,
      number,
      date,
      corrects: corrects ? { kind: corrects.kind, number: corrects.number, date: corrects.date } : null,
    };
    const [row] = await tx
      .insert(closingDocuments)
      .values({
        kind: draft.kind,
        year,
        number,
        userId,
        month: draft.month,
        date,
        amountNano: BigInt(draft.amountNano),
        vatNano: BigInt(draft.vatNano),
        facts,
        corrects: corrects?.id ?? null,
      })
      .onConflictDoNothing()
      .returning();
    return row ? fromRow(row) : null;
  }

  /** The accounts with spending in a month (persons and organisations alike: both are rows in users). */
  async function accountsWithSpending(month: string): Promise<string[]> {
    const rows = rowsOf<{ user_id: string }>(
      await db.execute(sql`
        select user_id from ledger_entries
        where kind in ('usage', 'assistant_usage')
          and created_at >= (${`${month}-01`}::date)::timestamp at time zone 'Europe/Moscow'
          and created_at < ((${`${month}-01`}::date + interval '1 month')::date)::timestamp at time zone 'Europe/Moscow'
        group by user_id having sum(amount_nano) < 0 order by min(created_at), user_id`),
    );
    return rows.map((r) => r.user_id);
  }

  return {
    /**
     * Issues the month's documents to every account with spending in it that has none of that kind yet, in
     * the order the accounts first spent. Idempotent: a second run issues nothing. 409 without requisites.
     */
    async issueMonth(month: string, now = new Date(), actor?: AuditActor): Promise<ClosingDocument[]> {
      const supplier = await supplierNow();
      const issued: ClosingDocument[] = [];
      for (const userId of await accountsWithSpending(month)) {
        for (const kind of kindsOf(supplier.closingDocuments)) {
          const draft = await factsNow(userId, month, kind, supplier, now);
          if (draft.lines.length === 0 || BigInt(draft.amountNano) === 0n) continue;
          const document = await db.transaction(async (tx) => {
            await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${NUMBER_LOCK}))`);
            const [existing] = await tx
              .select({ id: closingDocuments.id })
              .from(closingDocuments)
              .where(
                and(eq(closingDocuments.userId, userId), eq(closingDocuments.month, month), eq(closingDocuments.kind, kind), eq(closingDocuments.status, 'issued')),
              )
              .limit(1);
            if (existing) return null;
            return insert(tx, userId, draft, draft.to, null);
          });
          if (document) issued.push(document);
        }
      }
      // An operator's run is audited: which month, and the numbers it issued (none on a repeat).
      if (actor) {
        await recordAudit(db, actor, {
          action: 'documents.issue',
          targetType: 'document',
          targetId: null,
          before: null,
          after: { month, issued: issued.length, numbers: issued.map((d) => `${d.number}/${d.year}`) },
        });
      }
      return issued;
    },

    /**
     * Re-computes the facts of the document's account and month now (requisites, spending), issues a new
     * document of the same kind with the next number, dated today, naming the old one, and marks the old
     * superseded, in one transaction. 404 for an unknown id, 409 for a document already superseded.
     */
    async correct(id: string, now: Date, actor: AuditActor): Promise<{ old: ClosingDocument; document: ClosingDocument }> {
      const supplier = await supplierNow();
      const old = await this.get(id);
      if (!old) throw new AppError('not_found', closingTexts.documentNotFound);
      if (old.status !== 'issued') throw new AppError('conflict', closingTexts.alreadySuperseded);
      const draft = await factsNow(old.userId, old.month, old.kind, supplier, now);
      const document = await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${NUMBER_LOCK}))`);
        const marked = await tx
          .update(closingDocuments)
          .set({ status: 'superseded' })
          .where(and(eq(closingDocuments.id, old.id), eq(closingDocuments.status, 'issued')))
          .returning({ id: closingDocuments.id });
        if (marked.length === 0) throw new AppError('conflict', closingTexts.alreadySuperseded);
        const issued = await insert(tx, old.userId, draft, moscowDay(now), old);
        await recordAudit(tx, actor, {
          action: 'documents.correct',
          targetType: 'document',
          targetId: old.id,
          before: { number: old.number, year: old.year, amount: String(old.amountNano), status: 'issued' },
          after: { number: issued!.number, year: issued!.year, amount: String(issued!.amountNano), corrects: old.id },
        });
        return issued;
      });
      return { old: { ...old, status: 'superseded' }, document: document! };
    },

    async get(id: string): Promise<ClosingDocument | null> {
      if (!isDocumentId(id)) return null;
      const [row] = await db.select().from(closingDocuments).where(eq(closingDocuments.id, id)).limit(1);
      return row ? fromRow(row) : null;
    },

    /** The document if it was issued to `userId`; null otherwise (another customer's is not told apart). */
    async getFor(userId: string, id: string): Promise<ClosingDocument | null> {
      const document = await this.get(id);
      return document && document.userId === userId ? document : null;
    },

    /** The account's documents, newest month first, then by number. */
    async listFor(userId: string): Promise<ClosingDocument[]> {
      const rows = await db
        .select()
        .from(closingDocuments)
        .where(eq(closingDocuments.userId, userId))
        .orderBy(desc(closingDocuments.month), asc(closingDocuments.year), asc(closingDocuments.number));
      return rows.map(fromRow);
    },

    /** Every document of a month, by number. */
    async listMonth(month: string): Promise<ClosingDocument[]> {
      const rows = await db
        .select()
        .from(closingDocuments)
        .where(eq(closingDocuments.month, month))
        .orderBy(asc(closingDocuments.year), asc(closingDocuments.number));
      return rows.map(fromRow);
    },

    /** The issued акт of the account's month (a УПД standing in for it when the operator issues only УПД). */
    async issuedFor(userId: string, month: string): Promise<ClosingDocument | null> {
      const rows = await db
        .select()
        .from(closingDocuments)
        .where(and(eq(closingDocuments.userId, userId), eq(closingDocuments.month, month), eq(closingDocuments.status, 'issued')))
        .orderBy(asc(closingDocuments.kind));
      return rows[0] ? fromRow(rows[0]) : null;
    },
  };
}

export type ClosingDocuments = ReturnType<typeof createClosingDocuments>;
