// The price table: per model id or prefix (openai/*), what 1M prompt and 1M completion tokens cost in
// the balance currency, or (a transcription model, kind per_second) what a second of audio costs; rows are added, changed and deleted here, or imported from the provider's list.
// A saved price applies to every user at once, so the form asks first, saying what changes (issue 41).
// A token row may name its own prices of prompt tokens read from the provider's cache and written to it;
// left empty, they are the prompt price × CACHE_READ_PRICE_RATIO / CACHE_WRITE_PRICE_RATIO (issue 45).
import './admin.css';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import { putPriceInput } from '@server/admin/input';
import type { Outputs } from '../app/api';
import { Button, ConfirmDialog, Field, Loading } from '../shared/ui';
import { Money } from '../shared/Money';
import { currencySymbol, formatDateTime, formatMoney } from '../shared/format';
import { PerMillionPair } from './PerMillion';
import { useBillingConfig } from '../shared/billing-config';
import { check, decimalInput, decimalText, type FieldErrors } from '../shared/validate';
import { AdminError } from './AdminError';
import { PriceImport } from './PriceImport';

type PriceRow = Outputs['admin']['listPrices']['prices'][number];

/** A price as the confirmation shows it: every digit it has (at least to the kopeck), since it is what everyone will pay. */
const priceText = (value: number, currency: string | undefined) => formatMoney(value, currency, 'exact');

/** The row whose price a model id (or a pattern's prefix) pays now: the longest matching pattern, as the server picks. */
function priceInForce(pattern: string, rows: readonly PriceRow[]): PriceRow | null {
  const id = (pattern.endsWith('*') ? pattern.slice(0, -1) : pattern).trim().toLowerCase();
  let best: PriceRow | null = null;
  for (const row of rows) {
    const p = row.pattern.toLowerCase();
    const matches = p.endsWith('*') ? id.startsWith(p.slice(0, -1)) : p === id;
    if (matches && (!best || row.pattern.length > best.pattern.length)) best = row;
  }
  return best;
}

interface PriceChange {
  pattern: string;
  kind: 'per_token' | 'per_second';
  promptPerMillion: number;
  completionPerMillion: number;
  perSecond: number;
  /** Null: derived from the prompt price by the configured ratio. */
  cachedPromptPerMillion: number | null;
  cacheWritePerMillion: number | null;
}

/** The ratios a row without cache prices of its own derives them by (the price list's `default`). */
interface CacheRatios {
  cacheReadRatio: number;
  cacheWriteRatio: number;
}

/** «×0,1 от цены запроса»: how a cache price left empty is derived. */
const ratioText = (ratio: number) => `цена запроса × ${String(ratio).replace('.', ',')}`;

/** What a row charges, for the messages: «0,15 ₽ / 0,60 ₽ за 1 млн токенов (запрос / ответ)» or «0,0001 ₽ за секунду аудио». */
function chargedText(
  row: Pick<PriceChange, 'kind' | 'promptPerMillion' | 'completionPerMillion' | 'perSecond' | 'cachedPromptPerMillion' | 'cacheWritePerMillion'>,
  currency: string | undefined,
): string {
  if (row.kind === 'per_second') return `${formatMoney(row.perSecond, currency, 'exact')} за секунду аудио`;
  const own = [
    row.cachedPromptPerMillion !== null ? `из кэша ${formatMoney(row.cachedPromptPerMillion, currency, 'amount')}` : null,
    row.cacheWritePerMillion !== null ? `запись в кэш ${formatMoney(row.cacheWritePerMillion, currency, 'amount')}` : null,
  ].filter((part) => part !== null);
  const cache = own.length > 0 ? `; ${own.join(', ')}` : '';
  return `${formatMoney(row.promptPerMillion, currency, 'amount')} / ${formatMoney(row.completionPerMillion, currency, 'amount')} за 1 млн токенов (запрос / ответ)${cache}`;
}

/**
 * Asks before a price is saved: it applies to every user from their next request. Says which model, what
 * it paid and what it will pay per 1M tokens; «Отмена» changes nothing.
 */
function PriceChangeConfirm({
  change,
  rows,
  defaultPrice,
  currency,
  pending,
  error,
  onConfirm,
  onCancel,
}: {
  change: PriceChange | null;
  rows: readonly PriceRow[];
  defaultPrice: { promptPerMillion: number; completionPerMillion: number } | undefined;
  currency: string | undefined;
  pending: boolean;
  error: ReturnType<typeof apiError>;
  onConfirm(): void;
  onCancel(): void;
}) {
  const own = change ? (rows.find((r) => r.pattern.toLowerCase() === change.pattern.toLowerCase()) ?? null) : null;
  const inForce = change ? (own ?? priceInForce(change.pattern, rows)) : null;
  const before = inForce ?? defaultPrice;
  // A per-second row's token prices are not charged: comparing them would mislead.
  const wasPerSecond = inForce?.kind === 'per_second' ? inForce : null;
  const cacheLine = (label: string, now: number | null) => (
    <>
      <dt>{label}</dt>
      <dd data-testid="price-change-line">{now === null ? 'по умолчанию (от цены запроса)' : priceText(now, currency)}</dd>
    </>
  );
  const line = (label: string, was: number | undefined, now: number) => (
    <>
      <dt>{label}</dt>
      <dd data-testid="price-change-line">
        {was === undefined ? priceText(now, currency) : `${priceText(was, currency)} → ${priceText(now, currency)}`}
        {was === now ? ' (без изменений)' : ''}
      </dd>
    </>
  );
  return (
    <ConfirmDialog
      open={change !== null}
      title={own ? 'Изменить цену для всех?' : 'Добавить цену для всех?'}
      confirmText="Сохранить для всех"
      pending={pending}
      error={error}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      {change ? (
        <>
          <dl className="price-change">
            <dt>Модель</dt>
            <dd>
              <code>{change.pattern}</code>
            </dd>
            {change.kind === 'per_second' ? (
              line('Секунда аудио', wasPerSecond?.perSecond, change.perSecond)
            ) : (
              <>
                {line('Запрос за 1 млн токенов', wasPerSecond ? undefined : before?.promptPerMillion, change.promptPerMillion)}
                {line('Ответ за 1 млн токенов', wasPerSecond ? undefined : before?.completionPerMillion, change.completionPerMillion)}
                {change.cachedPromptPerMillion !== null || change.cacheWritePerMillion !== null ? (
                  <>
                    {cacheLine('Запрос из кэша за 1 млн токенов', change.cachedPromptPerMillion)}
                    {cacheLine('Запись в кэш за 1 млн токенов', change.cacheWritePerMillion)}
                  </>
                ) : null}
              </>
            )}
          </dl>
          {own ? null : (
            <p className="hint">
              {inForce ? `Сейчас эти модели стоят по шаблону «${inForce.pattern}».` : 'Сейчас эти модели стоят по цене по умолчанию.'} Строки с более длинным шаблоном
              сохранят свою цену.
            </p>
          )}
          <p>Новая цена применяется ко всем пользователям начиная со следующего запроса. Уже выполненные запросы не пересчитываются.</p>
        </>
      ) : null}
    </ConfirmDialog>
  );
}

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

function PriceForm({
  editing,
  rows,
  defaultPrice,
  currency,
  onSaved,
  onCancel,
}: {
  editing: PriceRow | null;
  rows: readonly PriceRow[];
  defaultPrice: ({ promptPerMillion: number; completionPerMillion: number } & Partial<CacheRatios>) | undefined;
  currency: string | undefined;
  onSaved(row: PriceRow, created: boolean): void;
  onCancel(): void;
}) {
  const [pattern, setPattern] = useState(editing?.pattern ?? '');
  const [prompt, setPrompt] = useState(editing ? decimalText(editing.promptPerMillion) : '');
  const [completion, setCompletion] = useState(editing ? decimalText(editing.completionPerMillion) : '');
  const [kind, setKind] = useState<PriceChange['kind']>(editing?.kind ?? 'per_token');
  const [perSecond, setPerSecond] = useState(editing?.kind === 'per_second' ? decimalText(editing.perSecond) : '');
  const [cached, setCached] = useState(editing?.cachedPromptPerMillion == null ? '' : decimalText(editing.cachedPromptPerMillion));
  const [cacheWrite, setCacheWrite] = useState(editing?.cacheWritePerMillion == null ? '' : decimalText(editing.cacheWritePerMillion));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [confirming, setConfirming] = useState<PriceChange | null>(null);
  const trpc = useTRPC();
  const save = useMutation(trpc.admin.putPrice.mutationOptions());
  const first = useRef<HTMLInputElement>(null);
  const unit = currency ? `, ${currencySymbol(currency)}` : '';

  useEffect(() => {
    if (editing) first.current?.focus();
  }, [editing]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const values =
      kind === 'per_second'
        ? { pattern, kind, perSecond: decimalInput(perSecond) }
        : {
            pattern,
            kind,
            promptPerMillion: decimalInput(prompt),
            completionPerMillion: decimalInput(completion),
            // Empty: derived from the prompt price.
            cachedPromptPerMillion: decimalInput(cached) ?? null,
            cacheWritePerMillion: decimalInput(cacheWrite) ?? null,
          };
    const checked = check(putPriceInput, values);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    save.reset();
    // Saved only once the operator has seen what changes for everyone.
    setConfirming({
      pattern: checked.data.pattern,
      kind,
      promptPerMillion: 'promptPerMillion' in values ? values.promptPerMillion! : 0,
      completionPerMillion: 'completionPerMillion' in values ? values.completionPerMillion! : 0,
      perSecond: 'perSecond' in values ? values.perSecond! : 0,
      cachedPromptPerMillion: 'cachedPromptPerMillion' in values ? (values.cachedPromptPerMillion ?? null) : null,
      cacheWritePerMillion: 'cacheWritePerMillion' in values ? (values.cacheWritePerMillion ?? null) : null,
    });
  };

  const onConfirm = async () => {
    if (!confirming) return;
    const sent =
      confirming.kind === 'per_second'
        ? { pattern: confirming.pattern, kind: confirming.kind, perSecond: confirming.perSecond }
        : {
            pattern: confirming.pattern,
            kind: confirming.kind,
            promptPerMillion: confirming.promptPerMillion,
            completionPerMillion: confirming.completionPerMillion,
            cachedPromptPerMillion: confirming.cachedPromptPerMillion,
            cacheWritePerMillion: confirming.cacheWritePerMillion,
          };
    const row = await answerOf(save.mutateAsync(sent));
    if (!row) return;
    setConfirming(null);
    onSaved(row, !editing);
    if (!editing) {
      setPattern('');
      setPrompt('');
      setCompletion('');
      setPerSecond('');
      setCached('');
      setCacheWrite('');
      setKind('per_token');
    }
  };

  return (
    <>
      <form onSubmit={onSubmit} noValidate data-testid="price-form" aria-label={editing ? `Изменить цену ${editing.pattern}` : 'Новая цена'}>
        <h3>{editing ? `Изменить цену «${editing.pattern}»` : 'Новая цена'}</h3>
        <div className="grid">
          <Field
            label="Шаблон модели"
            hint={
              editing
                ? 'Шаблон не меняется: чтобы задать другой, добавьте новую цену'
                : 'Идентификатор модели (openai/gpt-4o-mini) или префикс со звёздочкой (openai/*, *)'
            }
            error={errors.pattern}
          >
            {(props) => (
              <input {...props} name="pricePattern" value={pattern} readOnly={Boolean(editing)} onChange={(e) => setPattern(e.target.value)} spellCheck={false} />
            )}
          </Field>
          <Field label="Как считать" hint="За секунду аудио — для моделей распознавания речи (/v1/audio/transcriptions)" error={errors.kind}>
            {(props) => (
              <select {...props} name="priceKind" value={kind} onChange={(e) => setKind(e.target.value as PriceChange['kind'])}>
                <option value="per_token">За токены</option>
                <option value="per_second">За секунду аудио</option>
              </select>
            )}
          </Field>
          {kind === 'per_second' ? (
            <AmountField
              label={`Секунда аудио${unit}`}
              name="pricePerSecond"
              value={perSecond}
              onChange={setPerSecond}
              error={errors.perSecond}
              inputRef={editing ? first : undefined}
            />
          ) : (
            <>
              <AmountField
                label={`Запрос за 1M токенов${unit}`}
                name="pricePrompt"
                value={prompt}
                onChange={setPrompt}
                error={errors.promptPerMillion}
                inputRef={editing ? first : undefined}
              />
              <AmountField
                label={`Ответ за 1M токенов${unit}`}
                name="priceCompletion"
                value={completion}
                onChange={setCompletion}
                error={errors.completionPerMillion}
              />
              <AmountField
                label={`Запрос из кэша за 1M токенов${unit}`}
                name="priceCachedPrompt"
                value={cached}
                onChange={setCached}
                error={errors.cachedPromptPerMillion}
                hint={`Токены запроса, которые провайдер прочитал из своего кэша. Пусто — ${ratioText(defaultPrice?.cacheReadRatio ?? 0.1)}`}
              />
              <AmountField
                label={`Запись в кэш за 1M токенов${unit}`}
                name="priceCacheWrite"
                value={cacheWrite}
                onChange={setCacheWrite}
                error={errors.cacheWritePerMillion}
                hint={`Токены запроса, которые провайдер записал в свой кэш. Пусто — ${ratioText(defaultPrice?.cacheWriteRatio ?? 1.25)}`}
              />
            </>
          )}
        </div>
        <div className="actions">
          <Button type="submit" pending={save.isPending} pendingText="Сохраняем…">
            Сохранить цену
          </Button>
          {editing ? (
            <Button variant="secondary" onClick={onCancel} disabled={save.isPending}>
              Отмена
            </Button>
          ) : null}
        </div>
        <AdminError error={confirming ? undefined : apiError(save.error)} />
      </form>
      <PriceChangeConfirm
        change={confirming}
        rows={rows}
        defaultPrice={defaultPrice}
        currency={currency}
        pending={save.isPending}
        error={apiError(save.error)}
        onConfirm={onConfirm}
        onCancel={() => setConfirming(null)}
      />
    </>
  );
}

export function PricesScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const prices = useQuery(trpc.admin.listPrices.queryOptions());
  const currency = useBillingConfig().data?.currency;
  const [editing, setEditing] = useState<PriceRow | null>(null);
  const [deleting, setDeleting] = useState<PriceRow | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const remove = useMutation(trpc.admin.deletePrice.mutationOptions());
  const rows = prices.data?.prices ?? [];

  const onDelete = async () => {
    if (!deleting) return;
    const result = await answerOf(remove.mutateAsync({ pattern: deleting.pattern }));
    if (!result) return;
    setMessage(`${result.message}: ${deleting.pattern}`);
    if (editing?.pattern === deleting.pattern) setEditing(null);
    setDeleting(null);
    void queryClient.invalidateQueries({ queryKey: trpc.admin.listPrices.pathKey() });
  };

  return (
    <>
      <section className="card" aria-labelledby="prices-title" data-testid="admin-prices">
        <div className="section-head">
          <h2 id="prices-title">Цены моделей</h2>
          <Button variant="secondary" onClick={() => void prices.refetch()} disabled={prices.isFetching} aria-label="Обновить таблицу цен">
            Обновить
          </Button>
        </div>
        <p className="hint">
          Цена за 1 млн токенов в валюте баланса. Для модели берётся строка с самым длинным подходящим шаблоном.
          {prices.data ? ` Модели без подходящей строки стоят по цене по умолчанию, запрос / ответ: ` : ''}
          {prices.data ? (
            <PerMillionPair prompt={prices.data.default.promptPerMillion} completion={prices.data.default.completionPerMillion} currency={currency} />
          ) : null}
        </p>
        {message ? (
          <p className="success" role="status">
            {message}
          </p>
        ) : null}
        <AdminError error={apiError(prices.error)} />
        {prices.isPending ? <Loading /> : null}
        {prices.data && rows.length === 0 ? <p className="muted">Строк в таблице цен нет: все модели стоят по умолчанию.</p> : null}
        {rows.length > 0 ? (
          <div className="table-wrap">
            <table className="stack-table" data-testid="prices-table">
              <thead>
                <tr>
                  <th scope="col">Шаблон</th>
                  <th scope="col" className="num">
                    Запрос за 1M
                  </th>
                  <th scope="col" className="num">
                    Ответ за 1M
                  </th>
                  <th scope="col">Изменена</th>
                  <th scope="col">
                    <span className="visually-hidden">Действия</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.pattern} data-pattern={row.pattern} className={editing?.pattern === row.pattern ? 'row-open' : undefined}>
                    <td data-label="Шаблон" className="wrap-anywhere">
                      <code>{row.pattern}</code>
                    </td>
                    {row.kind === 'per_second' ? (
                      <td data-label="Цена" className="num" colSpan={2} data-testid="price-per-second">
                        <Money value={row.perSecond} currency={currency} kind="exact" /> за секунду аудио
                      </td>
                    ) : (
                      <>
                        <td data-label="Запрос за 1M" className="num">
                          <Money value={row.promptPerMillion} currency={currency} kind="amount" />
                          {row.cachedPromptPerMillion !== null || row.cacheWritePerMillion !== null ? (
                            <div className="muted" data-testid="price-cache">
                              {row.cachedPromptPerMillion !== null ? (
                                <span>
                                  из кэша <Money value={row.cachedPromptPerMillion} currency={currency} kind="amount" />
                                </span>
                              ) : null}
                              {row.cacheWritePerMillion !== null ? (
                                <span>
                                  {' '}
                                  запись в кэш <Money value={row.cacheWritePerMillion} currency={currency} kind="amount" />
                                </span>
                              ) : null}
                            </div>
                          ) : null}
                        </td>
                        <td data-label="Ответ за 1M" className="num">
                          <Money value={row.completionPerMillion} currency={currency} kind="amount" />
                        </td>
                      </>
                    )}
                    <td data-label="Изменена">{formatDateTime(row.updatedAt)}</td>
                    <td>
                      <div className="row-actions">
                        <Button
                          variant="secondary"
                          aria-label={`Изменить цену ${row.pattern}`}
                          onClick={() => {
                            setMessage(null);
                            setEditing(row);
                          }}
                        >
                          Изменить
                        </Button>
                        <Button
                          variant="danger"
                          aria-label={`Удалить цену ${row.pattern}`}
                          onClick={() => {
                            remove.reset();
                            setDeleting(row);
                          }}
                        >
                          Удалить
                        </Button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}

        <div className="tool">
          <PriceForm
            key={editing?.pattern ?? '+new'}
            editing={editing}
            rows={rows}
            defaultPrice={prices.data?.default}
            currency={currency}
            onCancel={() => setEditing(null)}
            onSaved={(row, created) => {
              setMessage(`Цена ${row.pattern} ${created ? 'добавлена' : 'сохранена'}: ${chargedText(row, currency)}`);
              setEditing(null);
              void queryClient.invalidateQueries({ queryKey: trpc.admin.listPrices.pathKey() });
            }}
          />
        </div>
      </section>

      <PriceImport onImported={() => void queryClient.invalidateQueries({ queryKey: trpc.admin.listPrices.pathKey() })} />

      <ConfirmDialog
        open={deleting !== null}
        title="Удалить цену?"
        confirmText="Удалить"
        pending={remove.isPending}
        error={apiError(remove.error)}
        onConfirm={onDelete}
        onCancel={() => setDeleting(null)}
      >
        <p>Строка «{deleting?.pattern}» будет удалена: подходящие модели станут стоить по более короткому шаблону или по цене по умолчанию.</p>
      </ConfirmDialog>
    </>
  );
}
