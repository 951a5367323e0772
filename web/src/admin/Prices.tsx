// The price table: per model id or prefix (openai/*), what 1M prompt and 1M completion tokens cost in
// the balance currency; rows are added, changed and deleted here, or imported from the provider's list.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useEffect, useRef, useState, type FormEvent } from 'react';
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

function PriceForm({
  editing,
  currency,
  onSaved,
  onCancel,
}: {
  editing: PriceRow | null;
  currency: string | undefined;
  onSaved(row: PriceRow, created: boolean): void;
  onCancel(): void;
}) {
  const [pattern, setPattern] = useState(editing?.pattern ?? '');
  const [prompt, setPrompt] = useState(editing ? decimalText(editing.promptPerMillion) : '');
  const [completion, setCompletion] = useState(editing ? decimalText(editing.completionPerMillion) : '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const trpc = useTRPC();
  const save = useMutation(trpc.admin.putPrice.mutationOptions());
  const first = useRef<HTMLInputElement>(null);
  const unit = currency ? `, ${currencySymbol(currency)}` : '';

  useEffect(() => {
    if (editing) first.current?.focus();
  }, [editing]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const values = { pattern, promptPerMillion: decimalInput(prompt), completionPerMillion: decimalInput(completion) };
    const checked = check(putPriceInput, values);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const row = await answerOf(
      save.mutateAsync({ pattern: checked.data.pattern, promptPerMillion: values.promptPerMillion!, completionPerMillion: values.completionPerMillion! }),
    );
    if (!row) return;
    onSaved(row, !editing);
    if (!editing) {
      setPattern('');
      setPrompt('');
      setCompletion('');
    }
  };

  return (
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
        <Field label={`Запрос за 1M токенов${unit}`} error={errors.promptPerMillion}>
          {(props) => (
            <input
              {...props}
              ref={editing ? first : undefined}
              name="pricePrompt"
              inputMode="decimal"
              autoComplete="off"
              value={prompt}
              onChange={(e) => setPrompt(e.target.value)}
            />
          )}
        </Field>
        <Field label={`Ответ за 1M токенов${unit}`} error={errors.completionPerMillion}>
          {(props) => (
            <input {...props} name="priceCompletion" inputMode="decimal" autoComplete="off" value={completion} onChange={(e) => setCompletion(e.target.value)} />
          )}
        </Field>
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
      <AdminError error={apiError(save.error)} />
    </form>
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
          {prices.data ? ` Модели без подходящей строки стоят по умолчанию (TOKEN_PRICE), запрос / ответ: ` : ''}
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
                    <td data-label="Запрос за 1M" className="num">
                      <Money value={row.promptPerMillion} currency={currency} kind="amount" />
                    </td>
                    <td data-label="Ответ за 1M" className="num">
                      <Money value={row.completionPerMillion} currency={currency} kind="amount" />
                    </td>
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
            currency={currency}
            onCancel={() => setEditing(null)}
            onSaved={(row, created) => {
              setMessage(
                `Цена ${row.pattern} ${created ? 'добавлена' : 'сохранена'}: ${formatMoney(row.promptPerMillion, currency, 'amount')} / ${formatMoney(row.completionPerMillion, currency, 'amount')} за 1 млн токенов (запрос / ответ)`,
              );
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
