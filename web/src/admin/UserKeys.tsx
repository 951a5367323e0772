// An operator acting on one account's API keys: revoking a key (it stops working on /v1 at once) and
// setting its budget (the spend limit and the period it resets in), each after a dialog that names the
// key and the account. Both land in the audit log.
import { useMutation } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useState } from 'react';
import { userKeyBudgetInput } from '@server/admin/keys-input';
import { LIMIT_RESETS, type LimitReset } from '@server/keys/limits';
import type { Outputs } from '../app/api';
import { Money } from '../shared/Money';
import { ConfirmDialog, Field } from '../shared/ui';
import { formatMoney } from '../shared/format';
import { limitResetLabels } from '../shared/texts';
import { check, decimalInput, decimalText, type FieldErrors } from '../shared/validate';

type UserKey = Outputs['admin']['getUser']['keys'][number];
type Kind = 'revoke' | 'budget';

/** «10,00 ₽ в сутки, потрачено 1,20 ₽», or «без лимита». */
export function KeyBudgetText({ apiKey, currency }: { apiKey: UserKey; currency: string | undefined }) {
  if (apiKey.spendLimit === null) return <span className="muted">без лимита</span>;
  const period = apiKey.limitReset === 'none' ? 'всего' : limitResetLabels[apiKey.limitReset];
  return (
    <span>
      {formatMoney(apiKey.spendLimit, currency, 'amount')} {period}
      <span className="muted">
        , потрачено <Money value={apiKey.spentThisPeriod} currency={currency} />
      </span>
    </span>
  );
}

export function useKeyActions(userId: string, onChanged: () => void) {
  const [kind, setKind] = useState<Kind | null>(null);
  const [key, setKey] = useState<UserKey | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [limit, setLimit] = useState('');
  const [reset, setReset] = useState<LimitReset>('month');
  const [errors, setErrors] = useState<FieldErrors>({});
  const trpc = useTRPC();
  const revoke = useMutation(trpc.admin.revokeUserKey.mutationOptions());
  const budget = useMutation(trpc.admin.setUserKeyBudget.mutationOptions());

  return {
    kind,
    key,
    message,
    limit,
    reset,
    errors,
    revoke,
    budget,
    setLimit,
    setReset,
    open(next: Kind, target: UserKey) {
      revoke.reset();
      budget.reset();
      setErrors({});
      setMessage(null);
      setLimit(target.spendLimit === null ? '' : decimalText(target.spendLimit));
      setReset(target.spendLimit === null ? 'month' : target.limitReset);
      setKey(target);
      setKind(next);
    },
    close() {
      setKind(null);
    },
    async confirm() {
      if (!key) return;
      if (kind === 'revoke') {
        if (!(await answerOf(revoke.mutateAsync({ id: userId, keyId: key.id })))) return;
        setMessage(`Ключ «${key.name}» отозван: запросы с ним больше не проходят`);
      } else {
        // An empty limit removes it.
        const values = { id: userId, keyId: key.id, spendLimit: limit.trim() === '' ? null : decimalInput(limit), limitReset: reset };
        const checked = check(userKeyBudgetInput, values);
        if (!checked.ok) {
          setErrors(checked.errors);
          return;
        }
        setErrors({});
        const saved = await answerOf(budget.mutateAsync({ id: userId, keyId: key.id, spendLimit: values.spendLimit ?? null, limitReset: reset }));
        if (!saved) return;
        setMessage(`Лимит расходов ключа «${key.name}» сохранён`);
      }
      setKind(null);
      onChanged();
    },
  };
}

export type KeyActions = ReturnType<typeof useKeyActions>;

export function KeyDialogs({ actions: a, email, currency }: { actions: KeyActions; email: string; currency: string | undefined }) {
  const key = a.key;
  return (
    <>
      <ConfirmDialog
        open={a.kind === 'revoke'}
        title="Отозвать ключ пользователя?"
        confirmText="Отозвать ключ"
        pending={a.revoke.isPending}
        error={apiError(a.revoke.error)}
        onConfirm={a.confirm}
        onCancel={a.close}
      >
        {key ? (
          <p className="wrap-anywhere">
            Ключ «{key.name}» (<code>{key.keyPrefix}…</code>) пользователя {email} перестанет работать сразу. Вернуть его нельзя: пользователь создаст новый.
          </p>
        ) : null}
      </ConfirmDialog>
      <ConfirmDialog
        open={a.kind === 'budget'}
        title="Лимит расходов ключа"
        confirmText="Сохранить лимит"
        pending={a.budget.isPending}
        error={apiError(a.budget.error)}
        onConfirm={a.confirm}
        onCancel={a.close}
      >
        {key ? (
          <div data-testid="key-budget-form">
            <p className="wrap-anywhere">
              Ключ «{key.name}» пользователя {email}. Сверх лимита запросы с ключом отклоняются; потраченное в текущем периоде
              {key.spendLimit === null ? '' : ` (${formatMoney(key.spentThisPeriod, currency, 'amount')})`} учитывается.
            </p>
            <Field label="Лимит расходов" hint="В валюте баланса; пусто — без лимита" error={a.errors.spendLimit}>
              {(props) => <input {...props} name="budgetLimit" inputMode="decimal" autoComplete="off" value={a.limit} onChange={(e) => a.setLimit(e.target.value)} />}
            </Field>
            <Field label="Период лимита" hint="Новый период начинается в 03:00 по московскому времени" error={a.errors.limitReset}>
              {(props) => (
                <select {...props} name="budgetReset" value={a.reset} onChange={(e) => a.setReset(e.target.value as LimitReset)}>
                  {LIMIT_RESETS.map((r) => (
                    <option key={r} value={r}>
                      {limitResetLabels[r]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </div>
        ) : null}
      </ConfirmDialog>
    </>
  );
}
