// One account for the operator: its figures, a credit or a correction (idempotent by its reference,
// confirmed with its amount, account and reason), blocking with a confirmation, its keys (each revoked
// or given a budget by the operator), its spend by model, its ledger and what admins did to it.
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC, useTRPCClient } from '../app/trpc';
import { useId, useState, type FormEvent } from 'react';
import { creditInput } from '@server/admin/input';
import type { Outputs } from '../app/api';
import { Button, ConfirmDialog, Field, Loading } from '../shared/ui';
import { KeyBudgetText, KeyDialogs, useKeyActions } from './UserKeys';
import { Money } from '../shared/Money';
import { formatDateTime, formatInt, formatMoney } from '../shared/format';
import { useBillingConfig } from '../shared/billing-config';
import { Link } from '../app/router';
import { ledgerKindLabels, ledgerReference, roleLabels } from '../shared/texts';
import { check, decimalInput, type FieldErrors } from '../shared/validate';
import { ModelName } from '../shared/ModelName';
import { AdminError } from './AdminError';
import { AuditTable } from './Audit';
import { UserPriceGroup } from './PriceGroups';

type Detail = Outputs['admin']['getUser'];
type CreditRequest = { id: string; amount: number; reason: string; reference: string };

/** A fresh reference for an operator's credit: a repeat of the same request (a double click, a retry) credits once. */
const newReference = () => `manual-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${Math.random().toString(36).slice(2, 6)}`;

function CreditForm({ detail, currency, onCredited }: { detail: Detail; currency: string | undefined; onCredited(): void }) {
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [reference, setReference] = useState(newReference);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<CreditRequest | null>(null);
  const trpc = useTRPC();
  const credit = useMutation(trpc.admin.creditUser.mutationOptions());

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    const values = { id: detail.user.id, amount: decimalInput(amount), reason, reference };
    const checked = check(creditInput, values);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    // A reference already in this account's ledger was used: the server would take the request as a
    // repeat and credit nothing, so the operator hears it before sending.
    if (detail.ledger.some((l) => l.kind === 'admin_credit' && l.reference === checked.data.reference)) {
      setErrors({ reference: 'Операция с этой ссылкой уже проведена: для новой операции укажите новую ссылку' });
      return;
    }
    setErrors({});
    credit.reset();
    // The schema turns the amount into exact nano-units for the server; the request carries the number.
    // Money moves only after the operator has seen the amount, the account and the reason once more.
    setConfirming({ id: detail.user.id, amount: values.amount!, reason: checked.data.reason, reference: checked.data.reference });
  };

  const onConfirm = async () => {
    const sent = confirming;
    if (!sent) return;
    const result = await answerOf(credit.mutateAsync(sent));
    if (!result) return;
    setConfirming(null);
    const verb = sent.amount > 0 ? 'Начислено' : 'Списано';
    setDone(
      `${verb} ${formatMoney(Math.abs(sent.amount), currency, 'amount')} (ссылка ${sent.reference}). Баланс: ${formatMoney(result.balance, currency, 'amount')}`,
    );
    setAmount('');
    setReason('');
    setReference(newReference());
    onCredited();
  };

  return (
    <form onSubmit={onSubmit} noValidate data-testid="credit-form">
      <div className="grid">
        <Field label="Сумма" hint="Положительная — начисление, отрицательная (например, −50) — списание" error={errors.amount}>
          {(props) => <input {...props} name="creditAmount" inputMode="decimal" autoComplete="off" value={amount} onChange={(e) => setAmount(e.target.value)} />}
        </Field>
        <Field label="Причина" hint="Видна в журнале действий" error={errors.reason}>
          {(props) => <input {...props} name="creditReason" maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />}
        </Field>
        <Field
          label="Ссылка операции (reference)"
          hint="Номер заявки или платежа. Повтор с той же ссылкой не начислит второй раз; для новой операции — новая ссылка."
          error={errors.reference}
        >
          {(props) => <input {...props} name="creditReference" maxLength={200} value={reference} onChange={(e) => setReference(e.target.value)} />}
        </Field>
      </div>
      <div className="actions">
        <Button type="submit" pending={credit.isPending} pendingText="Проводим…">
          Провести
        </Button>
        {done ? (
          <span className="success" role="status" data-testid="credit-result">
            {done}
          </span>
        ) : null}
      </div>
      <ConfirmDialog
        open={confirming !== null}
        title={confirming && confirming.amount < 0 ? 'Списать деньги с баланса?' : 'Начислить деньги на баланс?'}
        confirmText={confirming && confirming.amount < 0 ? 'Списать' : 'Начислить'}
        pending={credit.isPending}
        error={apiError(credit.error)}
        onConfirm={onConfirm}
        onCancel={() => setConfirming(null)}
      >
        {confirming ? (
          <dl className="facts" data-testid="credit-confirm">
            <div>
              <dt>Сумма</dt>
              <dd>{formatMoney(Math.abs(confirming.amount), currency, 'amount')}</dd>
            </div>
            <div>
              <dt>Пользователь</dt>
              <dd className="wrap-anywhere">{detail.user.email}</dd>
            </div>
            <div>
              <dt>Причина</dt>
              <dd className="wrap-anywhere">{confirming.reason}</dd>
            </div>
            <div>
              <dt>Ссылка</dt>
              <dd className="wrap-anywhere">{confirming.reference}</dd>
            </div>
          </dl>
        ) : null}
      </ConfirmDialog>
    </form>
  );
}

export function UserScreen({ id }: { id: string }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.admin.getUser.queryOptions({ id }));
  const currency = useBillingConfig().data?.currency;
  const [confirming, setConfirming] = useState(false);
  const [auditRound, setAuditRound] = useState(0);
  const [blockMessage, setBlockMessage] = useState<string | null>(null);
  const client = useTRPCClient();
  const block = useMutation({ mutationFn: (blocked: boolean) => (blocked ? client.admin.unblockUser.mutate({ id }) : client.admin.blockUser.mutate({ id })) });
  const [sessionAction, setSessionAction] = useState<'reset' | 'end' | null>(null);
  const [sessionMessage, setSessionMessage] = useState<string | null>(null);
  const sessions = useMutation({
    mutationFn: (action: 'reset' | 'end') => (action === 'reset' ? client.admin.sendPasswordReset.mutate({ id }) : client.admin.endUserSessions.mutate({ id })),
  });
  const headingId = useId();
  const d = detail.data;

  const afterChange = () => {
    void detail.refetch();
    setAuditRound((r) => r + 1);
  };
  const keyActions = useKeyActions(id, afterChange);

  const onBlock = async () => {
    if (!d) return;
    const result = await answerOf(block.mutateAsync(d.user.blocked));
    if (!result) return;
    setConfirming(false);
    setBlockMessage(result.blocked ? 'Пользователь заблокирован' : 'Блокировка снята');
    afterChange();
  };

  const onSessionAction = async () => {
    if (!sessionAction) return;
    const result = await answerOf(sessions.mutateAsync(sessionAction));
    if (!result) return;
    setSessionAction(null);
    setSessionMessage(result.message);
    setAuditRound((r) => r + 1);
  };

  return (
    <>
      <p>
        <Link to="/admin">← Все пользователи</Link>
      </p>
      {detail.isPending ? <Loading text="Загружаем пользователя…" /> : null}
      <AdminError error={apiError(detail.error)} />
      {d ? (
        <>
          <section className="card" aria-labelledby={headingId} data-testid="admin-user">
            <div className="section-head">
              <h2 id={headingId} className="wrap-anywhere">
                {d.user.email}
              </h2>
              <span className="badge">{roleLabels[d.user.role]}</span>
              {d.user.blocked ? <span className="badge badge-off">Заблокирован</span> : <span className="badge badge-ok">Активен</span>}
            </div>
            <dl className="facts">
              <div>
                <dt>Баланс</dt>
                <dd data-testid="admin-user-balance">
                  <Money value={d.user.balance} currency={currency} kind="amount" />
                </dd>
              </div>
              <div>
                <dt>Расход за месяц</dt>
                <dd>
                  <Money value={d.user.spendThisMonth} currency={currency} />
                </dd>
              </div>
              <div>
                <dt>Зарегистрирован</dt>
                <dd>{formatDateTime(d.user.createdAt)}</dd>
              </div>
              {d.user.blockedAt ? (
                <div>
                  <dt>Заблокирован с</dt>
                  <dd>{formatDateTime(d.user.blockedAt)}</dd>
                </div>
              ) : null}
            </dl>
            <UserPriceGroup userId={id} current={d.user.priceGroup} onMoved={afterChange} />
            <div className="actions">
              <Button
                variant={d.user.blocked ? 'secondary' : 'danger'}
                onClick={() => {
                  block.reset();
                  setBlockMessage(null);
                  setConfirming(true);
                }}
              >
                {d.user.blocked ? 'Разблокировать' : 'Заблокировать'}
              </Button>
              {blockMessage ? (
                <span className="success" role="status">
                  {blockMessage}
                </span>
              ) : null}
            </div>
            <div className="actions">
              <Button
                variant="secondary"
                onClick={() => {
                  sessions.reset();
                  setSessionMessage(null);
                  setSessionAction('reset');
                }}
              >
                Отправить ссылку для сброса пароля
              </Button>
              <Button
                variant="secondary"
                onClick={() => {
                  sessions.reset();
                  setSessionMessage(null);
                  setSessionAction('end');
                }}
              >
                Завершить все сеансы
              </Button>
              {sessionMessage ? (
                <span className="success" role="status" data-testid="admin-session-message">
                  {sessionMessage}
                </span>
              ) : null}
            </div>
          </section>

          <section className="card" aria-labelledby="credit-title">
            <h2 id="credit-title">Начислить или списать</h2>
            <CreditForm detail={d} currency={currency} onCredited={afterChange} />
          </section>

          <section className="card" aria-labelledby="user-keys-title">
            <h2 id="user-keys-title">API-ключи</h2>
            {keyActions.message ? (
              <p className="success" role="status" data-testid="admin-key-message">
                {keyActions.message}
              </p>
            ) : null}
            {d.keys.length === 0 ? (
              <p className="muted">Ключей нет.</p>
            ) : (
              <div className="table-wrap">
                <table className="stack-table" data-testid="admin-user-keys">
                  <thead>
                    <tr>
                      <th scope="col">Название</th>
                      <th scope="col">Начало ключа</th>
                      <th scope="col">Создан</th>
                      <th scope="col">Последнее использование</th>
                      <th scope="col">Лимит расходов</th>
                      <th scope="col">Состояние</th>
                      <th scope="col">
                        <span className="visually-hidden">Действия</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.keys.map((k) => (
                      <tr key={k.id} data-key-id={k.id}>
                        <td data-label="Название">{k.name}</td>
                        <td data-label="Начало ключа">
                          <code>{k.keyPrefix}…</code>
                        </td>
                        <td data-label="Создан">{formatDateTime(k.createdAt)}</td>
                        <td data-label="Использован">{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : 'ещё не использовался'}</td>
                        <td data-label="Лимит расходов" data-testid="admin-key-budget">
                          <KeyBudgetText apiKey={k} currency={currency} />
                        </td>
                        <td data-label="Состояние">
                          <span className={`badge ${k.isActive ? 'badge-ok' : 'badge-off'}`}>{k.isActive ? 'Активен' : 'Отозван'}</span>
                        </td>
                        <td data-label="Действия">
                          {k.isActive ? (
                            <div className="row-actions">
                              <Button variant="secondary" onClick={() => keyActions.open('budget', k)} aria-label={`Лимит расходов ключа ${k.name}`}>
                                Лимит
                              </Button>
                              <Button variant="danger" onClick={() => keyActions.open('revoke', k)} aria-label={`Отозвать ключ ${k.name}`}>
                                Отозвать
                              </Button>
                            </div>
                          ) : (
                            '—'
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>

          <section className="card" aria-labelledby="user-usage-title">
            <h2 id="user-usage-title">Расход по моделям</h2>
            {d.usageByModel.length === 0 ? (
              <p className="muted">Запросов не было.</p>
            ) : (
              <div className="table-wrap">
                <table className="stack-table" data-testid="admin-user-usage">
                  <thead>
                    <tr>
                      <th scope="col">Модель</th>
                      <th scope="col" className="num">
                        Запросов
                      </th>
                      <th scope="col" className="num">
                        Токенов (запрос / ответ)
                      </th>
                      <th scope="col" className="num">
                        Цена запросов
                      </th>
                      <th scope="col" className="num">
                        Цена ответов
                      </th>
                      <th scope="col" className="num">
                        Не оплачено
                      </th>
                      <th scope="col" className="num">
                        Списано
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.usageByModel.map((m) => (
                      <tr key={m.model}>
                        <td data-label="Модель">
                          <ModelName model={m.model} />
                        </td>
                        <td data-label="Запросов" className="num">
                          {formatInt(m.requests)}
                        </td>
                        <td data-label="Токенов" className="num">
                          {formatInt(m.promptTokens)} / {formatInt(m.completionTokens)}
                        </td>
                        <td data-label="Цена запросов" className="num">
                          <Money value={m.promptCost} currency={currency} />
                        </td>
                        <td data-label="Цена ответов" className="num">
                          <Money value={m.completionCost} currency={currency} />
                        </td>
                        <td data-label="Не оплачено" className="num">
                          {m.unpaid > 0 ? <Money value={m.unpaid} currency={currency} /> : '—'}
                        </td>
                        <td data-label="Списано" className="num">
                          <Money value={m.cost} currency={currency} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>

          <section className="card" aria-labelledby="user-ledger-title">
            <h2 id="user-ledger-title">Журнал баланса</h2>
            <p className="hint">Последние 100 записей, новые первыми.</p>
            <div className="table-wrap">
              <table className="stack-table" data-testid="admin-user-ledger">
                <thead>
                  <tr>
                    <th scope="col">Время</th>
                    <th scope="col">Операция</th>
                    <th scope="col" className="num">
                      Сумма
                    </th>
                    <th scope="col">Ссылка</th>
                  </tr>
                </thead>
                <tbody>
                  {d.ledger.map((l) => (
                    <tr key={l.id}>
                      <td data-label="Время">{formatDateTime(l.createdAt)}</td>
                      <td data-label="Операция">{ledgerKindLabels[l.kind] ?? l.kind}</td>
                      <td data-label="Сумма" className={`num ${l.amount < 0 ? 'amount-out' : 'amount-in'}`}>
                        {l.amount > 0 ? '+' : ''}
                        <Money value={l.amount} currency={currency} />
                      </td>
                      <td data-label="Ссылка" className="wrap-anywhere">
                        <LedgerReference reference={l.reference} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>

          <section className="card" aria-labelledby="user-audit-title">
            <h2 id="user-audit-title">Действия администраторов</h2>
            <AuditTable key={auditRound} targetId={d.user.id} pageSize={20} />
          </section>

          <KeyDialogs actions={keyActions} email={d.user.email} currency={currency} />

          <ConfirmDialog
            open={sessionAction !== null}
            title={sessionAction === 'reset' ? 'Отправить ссылку для сброса пароля?' : 'Завершить все сеансы пользователя?'}
            confirmText={sessionAction === 'reset' ? 'Отправить ссылку' : 'Завершить сеансы'}
            pending={sessions.isPending}
            error={apiError(sessions.error)}
            onConfirm={onSessionAction}
            onCancel={() => setSessionAction(null)}
          >
            {sessionAction === 'reset' ? (
              <p>
                На {d.user.email} уйдёт одноразовая ссылка на 1 час; прежние ссылки перестанут действовать. Пароль меняется, только когда пользователь откроет ссылку.
              </p>
            ) : (
              <p>Все токены входа {d.user.email} перестанут действовать сразу; API-ключи продолжат работать.</p>
            )}
          </ConfirmDialog>

          <ConfirmDialog
            open={confirming}
            title={d.user.blocked ? 'Снять блокировку?' : 'Заблокировать пользователя?'}
            confirmText={d.user.blocked ? 'Разблокировать' : 'Заблокировать'}
            pending={block.isPending}
            error={apiError(block.error)}
            onConfirm={onBlock}
            onCancel={() => setConfirming(false)}
          >
            {d.user.blocked ? (
              <p>{d.user.email} снова сможет входить в панель, а его API-ключи — работать.</p>
            ) : (
              <p>{d.user.email} не сможет войти в панель, его API-ключи и токены перестанут работать сразу. Баланс сохранится.</p>
            )}
          </ConfirmDialog>
        </>
      ) : null}
    </>
  );
}

/** A ledger entry's reference: a batch of requests in words, an identifier as code, none as a dash. */
function LedgerReference({ reference }: { reference: string | null }) {
  if (!reference) return <>—</>;
  const shown = ledgerReference(reference);
  return 'words' in shown ? <span title={reference}>{shown.words}</span> : <code>{shown.code}</code>;
}
