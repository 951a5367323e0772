// A key's rate limits in the keys panel: requests per minute (rpm), tokens per minute (tpm) and requests
// per day (rpd), each empty for the service's default; the same three fields in the creation form and in
// the change dialog, and one line of those set in the list.
import type { Outputs } from '../app/api';
import { Field } from '../shared/ui';
import type { FieldErrors } from '../shared/validate';

type ListedKey = Outputs['keys']['list']['keys'][number];

export const RATE_NAMES = ['rpm', 'tpm', 'rpd'] as const;
type RateName = (typeof RATE_NAMES)[number];
export type RateTexts = Record<RateName, string>;

const LABELS: Record<RateName, string> = {
  rpm: 'Запросов в минуту (rpm)',
  tpm: 'Токенов в минуту (tpm)',
  rpd: 'Запросов в сутки (rpd)',
};
const SHORT: Record<RateName, string> = { rpm: 'запр./мин', tpm: 'ток./мин', rpd: 'запр./сутки' };
const RATE_HINT = 'Необязательно. Пусто — по умолчанию сервиса. Сутки считаются по UTC (с 03:00 по Москве).';

export const EMPTY_RATES: RateTexts = { rpm: '', tpm: '', rpd: '' };

export const ratesOf = (key: Pick<ListedKey, RateName>): RateTexts => ({
  rpm: key.rpm === null ? '' : String(key.rpm),
  tpm: key.tpm === null ? '' : String(key.tpm),
  rpd: key.rpd === null ? '' : String(key.rpd),
});

/** A typed number («10 000» too); empty → null (the default); anything else → NaN for the schema to name. */
const rateValue = (text: string): number | null => (text.trim() === '' ? null : Number(text.replace(/[\s\u00a0]/g, '')));

/**
 * What the form sends: on creation the filled fields only; on a change (`initial` given) the changed
 * fields only, an emptied one as null.
 */
export function rateChanges(texts: RateTexts, initial?: RateTexts): Partial<Record<RateName, number | null>> {
  const out: Partial<Record<RateName, number | null>> = {};
  for (const name of RATE_NAMES) {
    const text = texts[name].trim();
    if (initial ? text === initial[name] : text === '') continue;
    out[name] = rateValue(text);
  }
  return out;
}

/** «60 запр./мин · 100 000 ток./мин» under the key's spend limit; nothing while the defaults apply. */
export function KeyRates({ apiKey }: { apiKey: Pick<ListedKey, RateName> }) {
  const set = RATE_NAMES.filter((n) => apiKey[n] !== null).map((n) => `${apiKey[n]!.toLocaleString('ru-RU')} ${SHORT[n]}`);
  if (set.length === 0) return null;
  return (
    <span className="hint cell-note" data-testid="key-rates">
      {set.join(' · ')}
    </span>
  );
}

export function RateFields({ values, errors, onChange }: { values: RateTexts; errors: FieldErrors; onChange(values: RateTexts): void }) {
  return (
    <>
      {RATE_NAMES.map((name) => (
        <Field key={name} label={LABELS[name]} hint={name === 'rpm' ? RATE_HINT : undefined} error={errors[name]}>
          {(props) => (
            <input
              {...props}
              name={name}
              inputMode="numeric"
              autoComplete="off"
              value={values[name]}
              onChange={(e) => onChange({ ...values, [name]: e.target.value })}
            />
          )}
        </Field>
      ))}
    </>
  );
}
