// The price table: per model id or prefix (openai/*), what 1M prompt and 1M completion tokens cost in
// the balance currency, or (a transcription model, kind per_second) what a second of audio costs; rows are added, changed and deleted here, or imported from the provider's list.
// A saved price applies to every user at once, so the form asks first, saying what changes (issue 41).
// A token row may name its own prices of prompt tokens read from the provider's cache and written to it;
// left empty, they are the prompt price × CACHE_READ_PRICE_RATIO / CACHE_WRITE_PRICE_RATIO (issue 45).
import './admin.css';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { putPriceInput } from '@server/admin/input';
import type { Outputs } from '../app/api';
import { Button, ConfirmDialog, Loading } from '../shared/ui';
import { formatMoney } from '../shared/format';
import { PerMillionPair } from './PerMillion';
import { useBillingConfig } from '../shared/billing-config';
import { check, type FieldErrors } from '../shared/validate';
import { AdminError } from './AdminError';
import { PriceImport } from './PriceImport';
import { PriceRowFields, PriceRowsTable, priceValues, usePriceDraft, type PriceKind } from './PriceRowFields';
import { RowActions, useConfirmedDelete } from './RowActions';

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
  kind: PriceKind;
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
  const { draft, set, reset } = usePriceDraft(editing);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [confirming, setConfirming] = useState<PriceChange | null>(null);
  const trpc = useTRPC();
  const save = useMutation(trpc.admin.putPrice.mutationOptions());
  const first = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (editing) first.current?.focus();
  }, [editing]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    // An empty cache price: null, derived from the prompt price.
    const values = priceValues(draft, true);
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
      kind: values.kind,
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
    if (!editing) reset();
  };

  return (
    <>
      <form onSubmit={onSubmit} noValidate data-testid="price-form" aria-label={editing ? `Изменить цену ${editing.pattern}` : 'Новая цена'}>
        <h3>{editing ? `Изменить цену «${editing.pattern}»` : 'Новая цена'}</h3>
        <div className="grid">
          <PriceRowFields
            prefix="price"
            draft={draft}
            set={set}
            errors={errors}
            currency={currency}
            patternReadOnly={Boolean(editing)}
            patternHint={
              editing
                ? 'Шаблон не меняется: чтобы задать другой, добавьте новую цену'
                : 'Идентификатор модели (openai/gpt-4o-mini) или префикс со звёздочкой (openai/*, *)'
            }
            firstRef={editing ? first : undefined}
            kinds
            cacheRatios={{ read: defaultPrice?.cacheReadRatio ?? 0.1, write: defaultPrice?.cacheWriteRatio ?? 1.25 }}
          />
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
  const [message, setMessage] = useState<string | null>(null);
  const remove = useMutation(trpc.admin.deletePrice.mutationOptions());
  const rows = prices.data?.prices ?? [];
  const deleting = useConfirmedDelete(
    remove,
    (row: PriceRow) => ({ pattern: row.pattern }),
    (row, done) => {
      setMessage(`${done}: ${row.pattern}`);
      if (editing?.pattern === row.pattern) setEditing(null);
      void queryClient.invalidateQueries({ queryKey: trpc.admin.listPrices.pathKey() });
    },
  );

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
          <PriceRowsTable
            rows={rows}
            currency={currency}
            testId="prices-table"
            updated
            isOpen={(row) => editing?.pattern === row.pattern}
            actions={(row) => (
              <RowActions
                subject={`цену ${row.pattern}`}
                onEdit={() => {
                  setMessage(null);
                  setEditing(row);
                }}
                onDelete={() => deleting.ask(row)}
              />
            )}
          />
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

      <ConfirmDialog {...deleting.dialog} title="Удалить цену?">
        <p>Строка «{deleting.asking?.pattern}» будет удалена: подходящие модели станут стоить по более короткому шаблону или по цене по умолчанию.</p>
      </ConfirmDialog>
    </>
  );
}
