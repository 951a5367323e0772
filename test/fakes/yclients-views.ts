// How the fake YCLIENTS shows a company, its staff and its services: the admin API's and the booking widget's
// shapes, with numbers and flags as strings when `legacyStrings` asks for the API's older habit.
import { type Company, findStaff, performs } from './yclients-calendar';
import type { FakeRecord, FakeServiceSpec, FakeStaffSpec, FakeYclientsSettings } from './yclients-types';

type ViewSettings = Pick<FakeYclientsSettings, 'legacyStrings' | 'companyTimezoneShape'>;

export function legacy<T extends Record<string, unknown>>(settings: ViewSettings, obj: T, keys: string[]): T {
  if (!settings.legacyStrings) return obj;
  const out: Record<string, unknown> = { ...obj };
  for (const k of keys) {
    const v = out[k];
    if (typeof v === 'number') out[k] = k.startsWith('price') ? v.toFixed(2) : String(v);
    else if (typeof v === 'boolean') out[k] = v ? '1' : '0';
  }
  return out as T;
}

export function companyView(settings: ViewSettings, company: Company) {
  const zone = company.spec.timeZone ?? 'Europe/Moscow';
  const view: Record<string, unknown> = {
    id: company.spec.id,
    title: company.spec.title ?? `Компания ${company.spec.id}`,
    country_id: 1,
    country: 'Россия',
    city_id: 1,
    city: 'Москва',
    address: '',
    phone_confirmation: false,
    active_staff_count: company.spec.staff.length,
  };
  if (settings.companyTimezoneShape === 'name') view.timezone = zone;
  if (settings.companyTimezoneShape === 'offset') {
    view.timezone = company.offsetMinutes / 60;
    view.timezone_name = zone;
  }
  return view;
}

export function adminStaff(settings: ViewSettings, company: Company, s: FakeStaffSpec) {
  return legacy(
    settings,
    {
      id: s.id,
      name: s.name,
      company_id: company.spec.id,
      specialization: s.specialization ?? '',
      position: s.position ?? [],
      avatar: 'https://example.invalid/avatar.png',
      avatar_big: 'https://example.invalid/avatar-big.png',
      fired: s.fired ? 1 : 0,
      status: 0,
      hidden: s.hidden ? 1 : 0,
      user_id: null,
    },
    ['id', 'company_id', 'fired', 'status', 'hidden'],
  );
}

export function adminService(settings: ViewSettings, company: Company, s: FakeServiceSpec) {
  const staff = company.spec.staff
    .filter((st) => performs(company, s, st.id))
    .map((st) => legacy(settings, { id: st.id, seance_length: s.staffDurations?.[st.id] ?? s.duration }, ['id', 'seance_length']));
  return {
    ...legacy(
      settings,
      {
        id: s.id,
        salon_service_id: s.id + 100_000,
        title: s.title,
        category_id: s.category_id ?? 0,
        price_min: s.price_min,
        price_max: s.price_max,
        discount: 0,
        comment: '',
        weight: 0,
        active: s.active === false ? 0 : 1,
        api_id: '',
      },
      ['id', 'salon_service_id', 'category_id', 'price_min', 'price_max', 'discount', 'weight', 'active'],
    ),
    staff,
  };
}

export function bookService(settings: ViewSettings, _company: Company, s: FakeServiceSpec, staffId: number | null) {
  const base: Record<string, unknown> = legacy(
    settings,
    {
      id: s.id,
      title: s.title,
      category_id: s.category_id ?? 0,
      price_min: s.price_min,
      price_max: s.price_max,
      discount: 0,
      comment: '',
      weight: 0,
      active: 1,
      sex: 0,
      image: '',
      prepaid: 'forbidden',
    },
    ['id', 'category_id', 'price_min', 'price_max', 'discount', 'weight', 'active'],
  );
  if (staffId !== null) base.seance_length = s.staffDurations?.[staffId] ?? s.duration;
  return base;
}

/**
 * A record as GET /record and the GET /records list show it (§8): its client card (null when it has none),
 * `attendance` and its twin `visit_attendance`.
 */
export function recordView(company: Company, rec: FakeRecord) {
  return {
    id: rec.id,
    company_id: company.spec.id,
    staff_id: rec.staffId,
    services: rec.serviceIds.map((id) => ({ id, title: company.spec.services.find((x) => x.id === id)?.title ?? '' })),
    staff: { id: rec.staffId, name: findStaff(company, rec.staffId)?.name ?? '' },
    client: rec.clientId === null ? null : { id: rec.clientId, name: rec.client.name, phone: `+${rec.client.phone.replace(/\D/g, '')}`, email: rec.client.email },
    date: rec.datetime.slice(0, 19).replace('T', ' '),
    datetime: rec.datetime,
    seance_length: rec.seanceLength,
    length: rec.seanceLength,
    comment: rec.comment,
    online: rec.online,
    attendance: rec.attendance,
    visit_attendance: rec.attendance,
    confirmed: 1,
    deleted: rec.deleted,
  };
}
