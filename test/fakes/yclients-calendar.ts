// The fake YCLIENTS' calendar: a company's specialists and services, its working hours, and time in its own
// UTC offset (every instant kept as epoch milliseconds). Pure functions of a company; the bookings that take
// time away live in the fake's state (test/fakes/yclients.ts).
import type { FakeServiceSpec, FakeStaffSpec, FakeCompanySpec } from './yclients-types';

/** A company as the fake keeps it: its spec, its UTC offset and the step of its free times. */
export interface Company {
  spec: FakeCompanySpec;
  offsetMinutes: number;
  offset: string;
  stepMs: number;
}

export function findStaff(company: Company, staffId: number): FakeStaffSpec | undefined {
  return company.spec.staff.find((s) => s.id === staffId);
}

export function performs(company: Company, service: FakeServiceSpec, staffId: number): boolean {
  return findStaff(company, staffId) !== undefined && (!service.staffIds || service.staffIds.includes(staffId));
}

export function performsId(company: Company, serviceId: number, staffId: number): boolean {
  const service = company.spec.services.find((s) => s.id === serviceId);
  return service !== undefined && performs(company, service, staffId);
}

export function durationOf(company: Company, staffId: number, serviceIds: number[]): number | null {
  if (serviceIds.length === 0) return 3600;
  let total = 0;
  for (const id of serviceIds) {
    const service = company.spec.services.find((s) => s.id === id);
    if (!service || service.active === false || !performs(company, service, staffId)) return null;
    total += service.staffDurations?.[staffId] ?? service.duration;
  }
  return total;
}

export function bookableStaff(company: Company, staffId: number): FakeStaffSpec[] {
  const all = company.spec.staff.filter((s) => s.bookable !== false && !s.fired && !s.hidden);
  return staffId === 0 ? all : all.filter((s) => s.id === staffId);
}

export function workIntervals(company: Company, staffId: number, date: string): { start: number; end: number }[] {
  return (company.spec.workingHours ?? [])
    .filter((w) => w.staffId === staffId && w.date === date)
    .map((w) => ({ start: localMs(company, w.date, w.start), end: localMs(company, w.date, w.end) }));
}

export function byMonth(dates: string[]): Record<string, number[]> | [] {
  if (dates.length === 0) return [];
  const out: Record<string, number[]> = {};
  for (const d of dates) {
    const key = String(Number(d.slice(5, 7)));
    (out[key] ??= []).push(Number(d.slice(8, 10)));
  }
  return out;
}

// -------------------------------------------------------------------------------------------
// Time in the company's offset: every instant is kept as epoch milliseconds.

export function localMs(company: Company, date: string, time: string): number {
  return Date.parse(`${date}T${time.length === 5 ? `${time}:00` : time}${company.offset}`);
}

export function shifted(company: Company, ms: number): string {
  return new Date(ms + company.offsetMinutes * 60_000).toISOString();
}

export function localDate(company: Company, ms: number): string {
  return shifted(company, ms).slice(0, 10);
}

export function localTime(company: Company, ms: number): string {
  return shifted(company, ms).slice(11, 16);
}

export function isoLocal(company: Company, ms: number): string {
  return `${shifted(company, ms).slice(0, 19)}${company.offset}`;
}

/** ISO 8601 with or without fractional seconds and offset; no offset means company time. */
export function parseDatetime(company: Company, text: string): number | null {
  const m = text.match(/^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/);
  if (!m) return null;
  const offset = m[5] ? (m[5] === 'Z' ? 'Z' : m[5].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')) : company.offset;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[3] ?? ':00'}${offset}`);
  return Number.isNaN(ms) ? null : ms;
}

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function intList(values: string[]): number[] {
  return values.map(Number).filter((n) => Number.isInteger(n));
}

/** YCLIENTS wants 9 to 15 digits ("Телефон должен содержать от 9 до 15 цифр"). */
export function validPhone(phone: string): boolean {
  const digits = phone.replace(/[\s()+-]/g, '');
  return /^\d{9,15}$/.test(digits);
}
