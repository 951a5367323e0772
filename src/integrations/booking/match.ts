// Knowing the client in YCLIENTS (issue 42 point 4): when the owner switched `matchClientRecords` on, the upcoming
// records made elsewhere (a phone call, the salon's widget) of the YCLIENTS client cards whose phone and name match
// what the client gave in the dialogue are linked to that dialogue as appointments (source 'matched'). They then
// count for «мои записи», for visit reminders, and can be confirmed, moved and cancelled like the dialogue's own.
//
// What is trusted: the phone typed in VK is not verified, so anyone could type another person's phone; the name has
// to match too, which keeps out a mistyped number, not a determined impostor. That is why it is off by default
// (README, docs/assistants.md).
//
// - Phone: the card's digits equal the dialogue's digits exactly (YCLIENTS shows `+7…`, the dialogue keeps `7…`).
// - Name: both normalised (lower case, ё → е, punctuation dropped, spaces collapsed), then every word of the shorter
//   name must be a word of the other: «Анна» matches «Анна Иванова» and «Иванова Анна», not «Анастасия» or «Мария».
// - Records: not deleted, `attendance` 0 (waiting) or 2 (confirmed), starting at `now` or later; one GET /records
//   per card (paged), at most MAX_CARDS cards per phone.
// - Mapping: when the agent maps specialists or services, a record whose specialist or service is not mapped is
//   skipped with a log line (the owner chose what the assistant handles); without a mapping YCLIENTS' ids are the
//   agent's ids.
// - Once: a unique index on (agent, record id) over live rows links a record once whatever runs concurrently, and
//   a record already linked — to this dialogue, another one, or booked through the API — is left where it is.
import { and, eq, gte, inArray, isNotNull, desc } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { dialogues } from '../../dialogues/tables';
import type { Logger } from '../../logger';
import type { BookingCache } from './cache';
import type { YclientsClient, YclientsRecord } from './client';
import type { OpenBookingSettings } from './settings';
import { appointments } from './tables';

/** A phone shared by more cards than this is a salon's own test number or worse: only the first ones are read. */
const MAX_CARDS = 5;
/** A dialogue is matched again at most this often (the sync and the client's «мои записи» share the mark). */
const MATCH_EVERY_SECONDS = 10 * 60;
/** After YCLIENTS failed, this long before it is asked for that dialogue again. */
const FAILED_MATCH_SECONDS = 60;

export type MatchOutcome =
  /** The owner did not switch matching on, or YCLIENTS is not set up. */
  | { status: 'off' }
  /** The dialogue has no phone or no name yet. */
  | { status: 'unknown_client' }
  /** Matched a moment ago: not asked again. */
  | { status: 'recent' }
  | { status: 'matched'; cards: number; linked: number }
  | { status: 'failed' };

/** Lower case, ё → е, letters and digits only, single spaces: the words a name is compared by. */
export function nameWords(name: string): string[] {
  return name
    .toLowerCase()
    .replace(/ё/g, 'е')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((w) => w !== '');
}

/** Every word of the shorter name is a word of the other (and neither is empty). */
export function namesMatch(a: string, b: string): boolean {
  const [short, long] = [nameWords(a), nameWords(b)].sort((x, y) => x.length - y.length) as [string[], string[]];
  return short.length > 0 && short.every((w) => long.includes(w));
}

const digits = (phone: string) => phone.replace(/\D/g, '');

function invert(mapping: Record<string, number>): Map<number, string> {
  const byExternal = new Map<number, string>();
  for (const [internal, external] of Object.entries(mapping)) if (!byExternal.has(external)) byExternal.set(external, internal);
  return byExternal;
}

export interface ClientMatchingDeps {
  db: Database;
  cache: BookingCache;
  logger: Logger;
  /** An administrator call of the agent's YCLIENTS (the token renewed once when refused). */
  asAdmin<T>(s: OpenBookingSettings, call: (client: YclientsClient, token: string) => Promise<T>): Promise<T>;
}

export function createClientMatching(deps: ClientMatchingDeps) {
  const { db, cache, logger } = deps;
  const markKey = (dialogueId: string) => `match:${dialogueId}`;

  /** The agent's ids of a record's specialist and service, or null when the agent's mapping leaves one out. */
  function idsOf(s: OpenBookingSettings, r: YclientsRecord): { specialistId: string; serviceId: string } | null {
    const staffId = r.staffId;
    const serviceId = r.serviceIds[0];
    if (staffId === null || serviceId === undefined) return null;
    const specialist = Object.keys(s.specialistMapping).length > 0 ? invert(s.specialistMapping).get(staffId) : String(staffId);
    const service = Object.keys(s.serviceMapping).length > 0 ? invert(s.serviceMapping).get(serviceId) : String(serviceId);
    return specialist === undefined || service === undefined ? null : { specialistId: specialist, serviceId: service };
  }

  /** Links the upcoming records of the matching cards; what it found. */
  async function link(s: OpenBookingSettings, dialogue: { id: string; clientPhone: string; clientName: string }, now: Date) {
    const phone = digits(dialogue.clientPhone);
    const found = await deps.asAdmin(s, (c, t) => c.searchClients(s.companyId, phone, t));
    const cards = found.filter((card) => digits(card.phone) === phone && namesMatch(card.name, dialogue.clientName));
    if (cards.length > MAX_CARDS) logger.warn('client matching: more cards for one phone than are read', { agentId: s.agentId, cards: cards.length });
    // The day before, so that no time zone cuts off today's visits; the exact instant is checked below.
    const startDate = new Date(now.getTime() - 24 * 3600_000).toISOString().slice(0, 10);
    const upcoming: YclientsRecord[] = [];
    for (const card of cards.slice(0, MAX_CARDS)) {
      const records = await deps.asAdmin(s, (c, t) => c.getClientRecords(s.companyId, card.id, startDate, t));
      for (const r of records) {
        const at = r.datetime ? Date.parse(r.datetime) : Number.NaN;
        if (!r.deleted && [0, 2].includes(r.attendance ?? 0) && Number.isFinite(at) && at >= now.getTime()) upcoming.push(r);
      }
    }
    upcoming.sort((a, b) => Date.parse(a.datetime!) - Date.parse(b.datetime!));
    if (upcoming.length === 0) return { cards: cards.length, linked: 0 };

    // Records already linked (anywhere) stay where they are: never stolen from another dialogue or the API's booking.
    const taken = await db
      .select({ recordId: appointments.externalRecordId, dialogueId: appointments.dialogueId })
      .from(appointments)
      .where(
        and(
          eq(appointments.agentId, s.agentId),
          inArray(
            appointments.externalRecordId,
            upcoming.map((r) => String(r.id)),
          ),
          inArray(appointments.status, ['pending', 'booked']),
        ),
      );
    const takenIds = new Map(taken.map((x) => [x.recordId, x.dialogueId]));
    let linked = 0;
    for (const r of upcoming) {
      const holder = takenIds.get(String(r.id));
      if (holder !== undefined) {
        if (holder !== dialogue.id) logger.info('client matching: record already linked elsewhere, left there', { agentId: s.agentId, recordId: r.id });
        continue;
      }
      const ids = idsOf(s, r);
      if (!ids) {
        logger.info('client matching: record of a specialist or service outside the agent mapping, skipped', {
          agentId: s.agentId,
          recordId: r.id,
          staffId: r.staffId,
          serviceIds: r.serviceIds,
        });
        continue;
      }
      // Either unique index (the record, or the specialist's start) already held: another run linked it first.
      const [row] = await db
        .insert(appointments)
        .values({
          agentId: s.agentId,
          ...ids,
          staffId: r.staffId!,
          externalServiceId: r.serviceIds[0]!,
          startsAt: new Date(Date.parse(r.datetime!)),
          datetime: r.datetime!,
          clientName: r.clientName || dialogue.clientName,
          clientPhone: phone,
          status: 'booked',
          externalRecordId: String(r.id),
          source: 'matched',
          dialogueId: dialogue.id,
        })
        .onConflictDoNothing()
        .returning({ id: appointments.id });
      if (row) {
        linked += 1;
        logger.info('client matching: record linked to the dialogue', { agentId: s.agentId, appointmentId: row.id, recordId: r.id });
      }
    }
    return { cards: cards.length, linked };
  }

  async function matchDialogue(s: OpenBookingSettings | null, dialogueId: string, now: Date): Promise<MatchOutcome> {
    if (!s?.matchClientRecords) return { status: 'off' };
    const [dialogue] = await db
      .select({ id: dialogues.id, clientPhone: dialogues.clientPhone, clientName: dialogues.clientName })
      .from(dialogues)
      .where(and(eq(dialogues.id, dialogueId), eq(dialogues.agentId, s.agentId)));
    if (!dialogue?.clientPhone || !dialogue.clientName || digits(dialogue.clientPhone) === '' || nameWords(dialogue.clientName).length === 0) {
      return { status: 'unknown_client' };
    }
    if (await cache.get(s.agentId, markKey(dialogueId))) return { status: 'recent' };
    try {
      const { cards, linked } = await link(s, { id: dialogue.id, clientPhone: dialogue.clientPhone, clientName: dialogue.clientName }, now);
      await cache.set(s.agentId, markKey(dialogueId), { at: now.toISOString() }, MATCH_EVERY_SECONDS);
      return { status: 'matched', cards, linked };
    } catch (error) {
      logger.warn('client matching: yclients could not be read; the dialogue keeps its own bookings', { agentId: s.agentId, dialogueId, error });
      await cache.set(s.agentId, markKey(dialogueId), { failed: true }, FAILED_MATCH_SECONDS).catch(() => {});
      return { status: 'failed' };
    }
  }

  return {
    matchDialogue,

    /**
     * The sync's share: the dialogues of this agent with a phone and a name that wrote since `since`, most
     * recent first, at most `limit`, each matched unless it was a moment ago. How many records it linked.
     */
    async matchRecent(s: OpenBookingSettings, since: Date, limit: number, now: Date): Promise<number> {
      if (!s.matchClientRecords) return 0;
      const recent = await db
        .select({ id: dialogues.id })
        .from(dialogues)
        .where(and(eq(dialogues.agentId, s.agentId), isNotNull(dialogues.clientPhone), isNotNull(dialogues.clientName), gte(dialogues.lastMessageAt, since)))
        .orderBy(desc(dialogues.lastMessageAt))
        .limit(limit);
      let linked = 0;
      for (const d of recent) {
        const outcome = await matchDialogue(s, d.id, now);
        if (outcome.status === 'matched') linked += outcome.linked;
      }
      return linked;
    },
  };
}

export type ClientMatching = ReturnType<typeof createClientMatching>;
