// The fake YCLIENTS' client cards and record lists (docs/integrations/yclients.md §8): `POST /company/{id}/clients/search`
// with `quick_search` on phone digits or name (honouring `fields`, 400 with `meta.errors` as an object for a bad
// filter), the deprecated `GET /clients/{id}?phone=` (a part of the number), and `GET /records/{id}` by `client_id`,
// `staff_id`, inclusive visit dates, `with_deleted`, `page`/`count` with `meta: {page, total_count}`. Records come
// newest-created first: the order is not documented, so the service must sort them itself.
import type { FakeRecord } from './yclients-types';

export interface FakeClientCard {
  id: number;
  companyId: number;
  name: string;
  /** Digits only; shown with a leading + as YCLIENTS does. */
  phone: string;
}

/** What the fake answers: a success envelope's data and meta, or an error with its status. */
export type ClientsAnswer = { status: number; data: unknown; meta: unknown } | { status: number; message: string; errors?: unknown };

const digits = (s: string) => s.replace(/\D/g, '');
const MAX_PAGE_SIZE = 200;

export function createClientCards() {
  const cards: FakeClientCard[] = [];
  let nextId = 18_936_800;

  function cardView(card: FakeClientCard, fields: string[]) {
    const full: Record<string, unknown> = { id: card.id, name: card.name, phone: `+${card.phone}`, email: '' };
    return Object.fromEntries(fields.filter((f) => f in full).map((f) => [f, full[f]]));
  }

  return {
    cards,
    add(companyId: number, client: { name: string; phone: string }): FakeClientCard {
      const card = { id: nextId++, companyId, name: client.name, phone: digits(client.phone) };
      cards.push(card);
      return card;
    },
    /** The card a new record goes to: the first one with the phone's digits, else a new card (as YCLIENTS does). */
    forRecord(companyId: number, client: { name: string; phone: string }): FakeClientCard {
      return cards.find((c) => c.companyId === companyId && c.phone === digits(client.phone)) ?? this.add(companyId, client);
    },
    search(companyId: number, body: unknown): ClientsAnswer {
      const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
      const filters = Array.isArray(b.filters) ? b.filters : [];
      let found = cards.filter((c) => c.companyId === companyId);
      for (const f of filters) {
        const filter = typeof f === 'object' && f !== null ? (f as Record<string, unknown>) : {};
        const state = typeof filter.state === 'object' && filter.state !== null ? (filter.state as Record<string, unknown>) : {};
        if (filter.type !== 'quick_search' || typeof state.value !== 'string' || state.value.trim() === '') {
          return { status: 400, message: 'An error has occurred', errors: { filters: ['Недопустимое значение состояния фильтра'] } };
        }
        const value = state.value.trim().toLowerCase();
        const valueDigits = digits(value);
        found = found.filter((c) => (valueDigits !== '' && c.phone.includes(valueDigits)) || c.name.toLowerCase().includes(value));
      }
      const page = Math.max(1, Number(b.page ?? 1) || 1);
      const size = Math.min(MAX_PAGE_SIZE, Math.max(1, Number(b.page_size ?? 25) || 25));
      const fields = Array.isArray(b.fields) && b.fields.length > 0 ? b.fields.map(String) : ['id'];
      return { status: 200, data: found.slice((page - 1) * size, page * size).map((c) => cardView(c, fields)), meta: { total_count: found.length } };
    },
    /** The deprecated list: `phone` is a part of the number. */
    byPhonePart(companyId: number, query: URLSearchParams): ClientsAnswer {
      const part = digits(query.get('phone') ?? '');
      const found = cards.filter((c) => c.companyId === companyId && (part === '' || c.phone.includes(part)));
      const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
      const count = Math.max(1, Number(query.get('count') ?? 20) || 20);
      return {
        status: 200,
        data: found.slice((page - 1) * count, page * count).map((c) => cardView(c, ['id', 'name', 'phone', 'email'])),
        meta: { page, total_count: found.length },
      };
    },
    clear() {
      cards.length = 0;
    },
  };
}

export type ClientCards = ReturnType<typeof createClientCards>;

/** `GET /records/{company_id}`: the administrator's record list, filtered and paged. */
export function listRecords(records: FakeRecord[], companyId: number, query: URLSearchParams, view: (rec: FakeRecord) => unknown): ClientsAnswer {
  const clientId = query.get('client_id');
  const staffId = query.get('staff_id');
  const from = query.get('start_date');
  const to = query.get('end_date');
  const withDeleted = query.get('with_deleted') === '1';
  const found = records
    .filter(
      (r) =>
        r.companyId === companyId &&
        (withDeleted || !r.deleted) &&
        (clientId === null || String(r.clientId) === clientId) &&
        (staffId === null || String(r.staffId) === staffId) &&
        (from === null || r.datetime.slice(0, 10) >= from) &&
        (to === null || r.datetime.slice(0, 10) <= to),
    )
    .reverse();
  const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
  const count = Math.max(1, Number(query.get('count') ?? 50) || 50);
  return { status: 200, data: found.slice((page - 1) * count, page * count).map(view), meta: { page, total_count: found.length } };
}
