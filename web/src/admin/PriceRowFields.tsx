// A price row as the console edits and lists it, shared by the price list (Prices.tsx) and a price group's own
// prices (PriceGroups.tsx): the form's text of a row and its fields (pattern; per 1M prompt and completion
// tokens, or, a transcription model, per second of audio; the price list's own cache prices), what the
// price inputs take from that text, and the table of rows.
import { useState, type ReactNode, type RefObject } from 'react';
import { currencySymbol, formatDateTime } from '../shared/format';
import { Money } from '../shared/Money';
import { Field } from '../shared/ui';
import { decimalInput, decimalText, type FieldErrors } from '../shared/validate';

export type PriceKind = 'per_token' | 'per_second';

/** A row as the server lists it; only the price list's rows have cache prices of their own. */
export interface ListedPrice {
  pattern: string;
  kind: PriceKind;
  promptPerMillion: number;
  completionPerMillion: number;
  perSecond: number;
  cachedPromptPerMillion?: number | null;
  cacheWritePerMillion?: number | null;
  updatedAt: string;
}

/** What the form's fields hold: the operator's text, decimals with a comma. */
export interface PriceDraft {
  pattern: string;
  kind: PriceKind;
  prompt: string;
  completion: string;
  perSecond: string;
  cached: string;
  cacheWrite: string;
}

const textOf = (value: number | null | undefined) => (value == null ? '' : decimalText(value));

function draftOf(row: ListedPrice | null): PriceDraft {
  return {
    pattern: row?.pattern ?? '',
    kind: row?.kind ?? 'per_token',
    prompt: row ? decimalText(row.promptPerMillion) : '',
    completion: row ? decimalText(row.completionPerMillion) : '',
    perSecond: row?.kind === 'per_second' ? decimalText(row.perSecond) : '',
    cached: textOf(row?.cachedPromptPerMillion),
    cacheWrite: textOf(row?.cacheWritePerMillion),
  };
}

/** The form's text of a row: the row being changed, or empty; `reset` empties it after a new row is saved. */
export function usePriceDraft(editing: ListedPrice | null) {
  const [draft, setDraft] = useState(() => draftOf(editing));
  const set =
    <K extends keyof PriceDraft>(field: K) =>
    (value: PriceDraft[K]) =>
      setDraft((before) => ({ ...before, [field]: value }));
  return { draft, set, reset: () => setDraft(draftOf(null)) };
}

export type PriceDraftSetter = ReturnType<typeof usePriceDraft>['set'];

/**
 * The row as the price inputs take it (putPriceInput, putGroupPriceInput): the prices its kind charges; with
 * `cache`, the own cache prices too, an empty one null (derived from the prompt price).
 */
export function priceValues(draft: PriceDraft, cache: boolean) {
  if (draft.kind === 'per_second') return { pattern: draft.pattern, kind: draft.kind, perSecond: decimalInput(draft.perSecond) };
  return {
    pattern: draft.pattern,
    kind: draft.kind,
    promptPerMillion: decimalInput(draft.prompt),
    completionPerMillion: decimalInput(draft.completion),
    ...(cache ? { cachedPromptPerMillion: decimalInput(draft.cached) ?? null, cacheWritePerMillion: decimalInput(draft.cacheWrite) ?? null } : {}),
  };
}

/** «, ₽» after a price's label once the balance currency is known. */
const unitOf = (currency: string | undefined) => (currency ? `, ${currencySymbol(currency)}` : '');

/** «цена запроса × 0,1»: how a cache price left empty is derived. */
const ratioText = (ratio: number) => `цена запроса × ${String(ratio).replace('.', ',')}`;

/** One price of the form: a decimal in the balance currency. */
function AmountField(props: {
  label: string;
  name: string;
  value: string;
  onChange(value: string): void;
  error: string | undefined;
  inputRef?: RefObject<HTMLInputElement | null> | undefined;
  hint?: string | undefined;
}) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint}>
      {(field) => (
        <input
          {...field}
          ref={props.inputRef}
          name={props.name}
          inputMode="decimal"
          autoComplete="off"
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

/**
 * A row's fields, named `<prefix>Pattern`, `<prefix>Prompt`… The choice of kind only with `kinds`; the own
 * cache prices only with `cacheRatios` (their hints say the ratio an empty one is derived by).
 */
export function PriceRowFields({
  prefix,
  draft,
  set,
  errors,
  currency,
  patternReadOnly = false,
  patternHint,
  firstRef,
  kinds = false,
  cacheRatios,
}: {
  prefix: string;
  draft: PriceDraft;
  set: PriceDraftSetter;
  errors: FieldErrors;
  currency: string | undefined;
  patternReadOnly?: boolean;
  patternHint?: string;
  /** Focused when a row is opened for a change: the first price. */
  firstRef?: RefObject<HTMLInputElement | null> | undefined;
  kinds?: boolean;
  cacheRatios?: { read: number; write: number };
}) {
  const unit = unitOf(currency);
  return (
    <>
      <Field label="Шаблон модели" hint={patternHint} error={errors.pattern}>
        {(props) => (
          <input
            {...props}
            name={`${prefix}Pattern`}
            value={draft.pattern}
            readOnly={patternReadOnly}
            onChange={(e) => set('pattern')(e.target.value)}
            spellCheck={false}
          />
        )}
      </Field>
      {kinds ? (
        <Field label="Как считать" hint="За секунду аудио — для моделей распознавания речи (/v1/audio/transcriptions)" error={errors.kind}>
          {(props) => (
            <select {...props} name={`${prefix}Kind`} value={draft.kind} onChange={(e) => set('kind')(e.target.value as PriceKind)}>
              <option value="per_token">За токены</option>
              <option value="per_second">За секунду аудио</option>
            </select>
          )}
        </Field>
      ) : null}
      {draft.kind === 'per_second' ? (
        <AmountField
          label={`Секунда аудио${unit}`}
          name={`${prefix}PerSecond`}
          value={draft.perSecond}
          onChange={set('perSecond')}
          error={errors.perSecond}
          inputRef={firstRef}
        />
      ) : (
        <>
          <AmountField
            label={`Запрос за 1M токенов${unit}`}
            name={`${prefix}Prompt`}
            value={draft.prompt}
            onChange={set('prompt')}
            error={errors.promptPerMillion}
            inputRef={firstRef}
          />
          <AmountField
            label={`Ответ за 1M токенов${unit}`}
            name={`${prefix}Completion`}
            value={draft.completion}
            onChange={set('completion')}
            error={errors.completionPerMillion}
          />
          {cacheRatios ? (
            <>
              <AmountField
                label={`Запрос из кэша за 1M токенов${unit}`}
                name={`${prefix}CachedPrompt`}
                value={draft.cached}
                onChange={set('cached')}
                error={errors.cachedPromptPerMillion}
                hint={`Токены запроса, которые провайдер прочитал из своего кэша. Пусто — ${ratioText(cacheRatios.read)}`}
              />
              <AmountField
                label={`Запись в кэш за 1M токенов${unit}`}
                name={`${prefix}CacheWrite`}
                value={draft.cacheWrite}
                onChange={set('cacheWrite')}
                error={errors.cacheWritePerMillion}
                hint={`Токены запроса, которые провайдер записал в свой кэш. Пусто — ${ratioText(cacheRatios.write)}`}
              />
            </>
          ) : null}
        </>
      )}
    </>
  );
}

/** The prompt price's cell: the price, and under it the row's own cache prices when it has any. */
function PromptCell({ row, currency }: { row: ListedPrice; currency: string | undefined }) {
  const cached = row.cachedPromptPerMillion ?? null;
  const write = row.cacheWritePerMillion ?? null;
  return (
    <td data-label="Запрос за 1M" className="num">
      <Money value={row.promptPerMillion} currency={currency} kind="amount" />
      {cached !== null || write !== null ? (
        <div className="muted" data-testid="price-cache">
          {cached !== null ? (
            <span>
              из кэша <Money value={cached} currency={currency} kind="amount" />
            </span>
          ) : null}
          {write !== null ? (
            <span>
              {' '}
              запись в кэш <Money value={write} currency={currency} kind="amount" />
            </span>
          ) : null}
        </div>
      ) : null}
    </td>
  );
}

/**
 * The rows' table: the pattern, the prices per 1M prompt and completion tokens (a per-second row's price of a
 * second of audio across both), with `updated` when the row was last changed, and each row's `actions`.
 */
export function PriceRowsTable<Row extends ListedPrice>({
  rows,
  currency,
  testId,
  updated = false,
  isOpen,
  actions,
}: {
  rows: readonly Row[];
  currency: string | undefined;
  testId?: string;
  updated?: boolean;
  /** The row open in the form, marked. */
  isOpen?: (row: Row) => boolean;
  actions(row: Row): ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className="stack-table" data-testid={testId}>
        <thead>
          <tr>
            <th scope="col">Шаблон</th>
            <th scope="col" className="num">
              Запрос за 1M
            </th>
            <th scope="col" className="num">
              Ответ за 1M
            </th>
            {updated ? <th scope="col">Изменена</th> : null}
            <th scope="col">
              <span className="visually-hidden">Действия</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.pattern} data-pattern={row.pattern} className={isOpen?.(row) ? 'row-open' : undefined}>
              <td data-label="Шаблон" className="wrap-anywhere">
                <code>{row.pattern}</code>
              </td>
              {row.kind === 'per_second' ? (
                <td data-label="Цена" className="num" colSpan={2} data-testid="price-per-second">
                  <Money value={row.perSecond} currency={currency} kind="exact" /> за секунду аудио
                </td>
              ) : (
                <>
                  <PromptCell row={row} currency={currency} />
                  <td data-label="Ответ за 1M" className="num">
                    <Money value={row.completionPerMillion} currency={currency} kind="amount" />
                  </td>
                </>
              )}
              {updated ? <td data-label="Изменена">{formatDateTime(row.updatedAt)}</td> : null}
              <td>{actions(row)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
