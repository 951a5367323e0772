// «Автопополнение»: the card saved on a top-up (its name and last digits, «Удалить»), the form «пополнять на X,
// когда баланс ниже Y, не больше Z в месяц», and the latest auto payments with their outcome.
// GET|PUT /api/billing/auto-topup, DELETE /api/billing/card.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { autoTopupSettingsInput } from '@server/billing/auto-topup-input';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import type { ApiError, Outputs } from '../app/api';
import { Button, ConfirmDialog, ErrorText, Field, Loading, SubmitRow } from '../shared/ui';
import { currencySymbol, formatDateTime, formatMoney } from '../shared/format';
import { cancellationReasonText } from '../shared/texts';
import { check, decimalInput, decimalText, withServerErrors, type FieldErrors } from '../shared/validate';
import { TopupStatusBadge } from './Topups';

type AutoTopup = Outputs['billing']['autoTopup'];

export function AutoTopupSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.billing.autoTopup.queryOptions());
  const save = useMutation(trpc.billing.saveAutoTopup.mutationOptions());
  const remove = useMutation(trpc.billing.removeCard.mutationOptions());
  const [enabled, setEnabled] = useState(false);
  const [amount, setAmount] = useState('');
  const [threshold, setThreshold] = useState('');
  const [monthlyLimit, setMonthlyLimit] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [refused, setRefused] = useState<ApiError | undefined>();
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);

  useEffect(() => {
    const data = settings.data;
    if (!data) return;
    setEnabled(data.enabled);
    setAmount(data.amount === null ? '' : decimalText(data.amount));
    setThreshold(data.threshold === null ? '' : decimalText(data.threshold));
    setMonthlyLimit(data.monthlyLimit === null ? '' : decimalText(data.monthlyLimit));
  }, [settings.data]);

  if (settings.isPending) return <Loading />;
  if (!settings.data) return <ErrorText error={apiError(settings.error)} />;
  const current: AutoTopup = settings.data;
  if (!current.available) return null;
  const symbol = currencySymbol(current.currency);
  const money = (value: number) => formatMoney(value, current.currency, 'amount');
  const show = (next: AutoTopup) => queryClient.setQueryData(trpc.billing.autoTopup.queryKey(), next);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const checked = check(autoTopupSettingsInput, {
      enabled,
      amount: decimalInput(amount),
      threshold: decimalInput(threshold),
      monthlyLimit: decimalInput(monthlyLimit),
    });
    if (!checked.ok) {
      setErrors(checked.errors);
      save.reset();
      setRefused({ message: checked.message, type: 'invalid_request_error' });
      return;
    }
    setErrors({});
    setRefused(undefined);
    const result = await answerOf(save.mutateAsync(checked.data));
    if (result) {
      show(result);
      setSaved(true);
    }
  };

  const onRemove = async () => {
    const result = await answerOf(remove.mutateAsync());
    if (result) {
      show(result);
      setConfirming(false);
    }
  };

  const saveError = refused ?? apiError(save.error);
  const shown = withServerErrors(errors, saveError);
  const card = current.card;

  return (
    <section className="card" aria-labelledby="auto-topup-title" data-testid="auto-topup">
      <h2 id="auto-topup-title">Автопополнение</h2>
      {card ? (
        <p className="status-line" data-testid="saved-card">
          <span>
            Сохранённая карта: <strong>{card.title}</strong>
            {card.expiryMonth && card.expiryYear ? `, действует до ${card.expiryMonth}/${card.expiryYear}` : ''}
          </span>
          <Button variant="secondary" onClick={() => setConfirming(true)}>
            Удалить
          </Button>
        </p>
      ) : (
        <p className="hint" data-testid="no-card">
          Карта не сохранена. Чтобы включить автопополнение, пополните баланс с отметкой «Сохранить карту для автопополнения».
        </p>
      )}
      <form onSubmit={onSubmit} noValidate aria-label="Настройки автопополнения">
        <label className="checkbox">
          <input type="checkbox" name="autoTopupEnabled" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
          <span>Пополнять баланс автоматически с сохранённой карты</span>
        </label>
        <Field label={`Пополнять на, ${symbol}`} error={shown.amount}>
          {(props) => <input {...props} name="autoTopupAmount" inputMode="decimal" autoComplete="off" value={amount} onChange={(e) => setAmount(e.target.value)} />}
        </Field>
        <Field label={`Когда баланс ниже, ${symbol}`} hint="Один платёж на каждое снижение баланса ниже порога." error={shown.threshold}>
          {(props) => (
            <input {...props} name="autoTopupThreshold" inputMode="decimal" autoComplete="off" value={threshold} onChange={(e) => setThreshold(e.target.value)} />
          )}
        </Field>
        <Field
          label={`Не больше в месяц, ${symbol}`}
          hint={`За этот календарный месяц (по Москве) автопополнения: ${money(current.monthSpent)}.`}
          error={shown.monthlyLimit}
        >
          {(props) => (
            <input
              {...props}
              name="autoTopupMonthlyLimit"
              inputMode="decimal"
              autoComplete="off"
              value={monthlyLimit}
              onChange={(e) => setMonthlyLimit(e.target.value)}
            />
          )}
        </Field>
        {current.consecutiveFailures > 0 ? (
          <p className="notice" data-testid="auto-topup-failures">
            Неудачных платежей подряд: {current.consecutiveFailures}. После трёх автопополнение выключается.
          </p>
        ) : null}
        <SubmitRow label="Сохранить" pending={save.isPending} done={saved && !save.isPending} error={saveError} />
      </form>
      {current.attempts.length > 0 ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="auto-topup-attempts">
            <caption className="visually-hidden">Последние автопополнения</caption>
            <thead>
              <tr>
                <th scope="col">Дата</th>
                <th scope="col" className="num">
                  Сумма
                </th>
                <th scope="col">Статус</th>
                <th scope="col">Подробности</th>
              </tr>
            </thead>
            <tbody>
              {current.attempts.map((a) => (
                <tr key={a.id}>
                  <td data-label="Дата">{formatDateTime(a.createdAt)}</td>
                  <td data-label="Сумма" className="num">
                    {money(a.amount)}
                  </td>
                  <td data-label="Статус">
                    <TopupStatusBadge status={a.status} />
                  </td>
                  <td data-label="Подробности">{a.status === 'canceled' ? cancellationReasonText(a.cancellationReason) : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <ConfirmDialog
        open={confirming}
        title="Удалить сохранённую карту?"
        confirmText="Удалить карту"
        pending={remove.isPending}
        error={apiError(remove.error)}
        onConfirm={() => void onRemove()}
        onCancel={() => setConfirming(false)}
      >
        <p>Автопополнение выключится. Чтобы включить его снова, сохраните карту при следующем пополнении.</p>
      </ConfirmDialog>
    </section>
  );
}
