// Balance top-ups through YooKassa: the form on the overview (shown only when the service takes
// top-ups), the history of the user's top-ups, and the page YooKassa returns the buyer to, which waits
// for the payment's outcome.
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useRefusal, useTRPC } from '../app/trpc';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { createTopupInput, topupAmountProblem, type TopupStatus } from '@server/billing/topups-input';
import { unitsToNano } from '@server/money';
import type { Outputs } from '../app/api';
import { Pager, useCursorPages } from '../shared/Pager';
import { Button, ErrorText, Field, Loading } from '../shared/ui';
import { Money } from '../shared/Money';
import { currencySymbol, formatMoney, formatDateTime } from '../shared/format';
import { useBillingConfig, type BillingConfig } from '../shared/billing-config';
import { Link } from '../app/router';
import { cancellationReasonText, topupStatusLabels } from '../shared/texts';
import { check, decimalInput } from '../shared/validate';

type Topup = Outputs['billing']['getTopup'];

const HISTORY_PAGE = 10;
/** The return page asks for the outcome this often while the payment is pending… */
const POLL_MS = 2000;
/** …and this many times, then offers a button to ask again. */
const POLL_TIMES = 10;

const STATUS_BADGE: Record<TopupStatus, string> = { pending: 'badge', succeeded: 'badge badge-ok', canceled: 'badge badge-off' };

export const TopupStatusBadge = ({ status }: { status: TopupStatus }) => <span className={STATUS_BADGE[status]}>{topupStatusLabels[status]}</span>;

/** The amount's problem in the server's words: its schema first, then the limits from the billing config. */
function amountProblem(text: string, config: BillingConfig): { ok: true; amount: number } | { ok: false; message: string } {
  const checked = check(createTopupInput, { amount: decimalInput(text) });
  if (!checked.ok) return { ok: false, message: checked.errors.amount ?? checked.message };
  const minNano = unitsToNano(config.minAmount);
  const maxNano = unitsToNano(config.maxAmount);
  if (minNano !== null && maxNano !== null) {
    const problem = topupAmountProblem(checked.data.amount, { minNano, maxNano, currency: config.currency });
    if (problem) return { ok: false, message: problem };
  }
  return { ok: true, amount: checked.data.amount };
}

/**
 * «Пополнить баланс»: the amount, then the browser leaves for YooKassa's payment page. Renders nothing
 * when the service takes no top-ups.
 */
export function TopupPanel({ config }: { config: BillingConfig | undefined }) {
  const [open, setOpen] = useState(false);
  const [amount, setAmount] = useState('');
  const [saveCard, setSaveCard] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [leaving, setLeaving] = useState(false);
  const trpc = useTRPC();
  const create = useMutation(trpc.billing.createTopup.mutationOptions());
  const [createError, refuseCreate] = useRefusal(create);
  const openerId = useId();
  const amountRef = useRef<HTMLInputElement>(null);
  const wasOpen = useRef(false);

  // Opening moves focus to the amount; closing brings it back to the button that opened the form.
  useEffect(() => {
    if (open) amountRef.current?.focus();
    else if (wasOpen.current) document.getElementById(openerId)?.focus();
    wasOpen.current = open;
  }, [open, openerId]);

  if (!config?.enabled) return null;
  const symbol = currencySymbol(config.currency);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = amountProblem(amount, config);
    if (!checked.ok) {
      setError(checked.message);
      return;
    }
    setError(undefined);
    const topup = await answerOf(create.mutateAsync({ amount: checked.amount, ...(saveCard ? { saveCard: true } : {}) }));
    if (!topup) return;
    if (!topup.confirmationUrl) {
      refuseCreate({ message: 'ЮKassa не вернула страницу оплаты: попробуйте ещё раз позже', type: 'upstream_error' });
      return;
    }
    setLeaving(true);
    window.location.assign(topup.confirmationUrl);
  };

  return (
    <div className="topup">
      {open ? null : (
        <Button id={openerId} onClick={() => setOpen(true)}>
          Пополнить баланс
        </Button>
      )}
      {open ? (
        <form className="inline-form topup-form" onSubmit={onSubmit} noValidate aria-label="Пополнение баланса" data-testid="topup-form">
          <Field
            label={`Сумма пополнения, ${symbol}`}
            hint={`От ${formatMoney(config.minAmount, config.currency, 'amount')} до ${formatMoney(config.maxAmount, config.currency, 'amount')}. Оплата на странице ЮKassa.`}
            error={error}
          >
            {(props) => (
              <input
                {...props}
                ref={amountRef}
                name="topupAmount"
                inputMode="decimal"
                autoComplete="off"
                value={amount}
                onChange={(e) => setAmount(e.target.value)}
              />
            )}
          </Field>
          <label className="checkbox">
            <input type="checkbox" name="saveCard" checked={saveCard} onChange={(e) => setSaveCard(e.target.checked)} />
            <span>Сохранить карту для автопополнения (ЮKassa запомнит её; удалить карту можно в любой момент)</span>
          </label>
          <div className="actions">
            <Button type="submit" pending={create.isPending || leaving} pendingText={leaving ? 'Переходим к оплате…' : 'Создаём платёж…'}>
              Перейти к оплате
            </Button>
            <Button variant="secondary" onClick={() => setOpen(false)} disabled={create.isPending || leaving}>
              Отмена
            </Button>
          </div>
        </form>
      ) : null}
      <p className="visually-hidden" role="status" aria-live="polite">
        {leaving ? 'Переходим на страницу оплаты ЮKassa' : ''}
      </p>
      <ErrorText error={createError} />
    </div>
  );
}

/** The user's top-ups, newest first: date (a link to the top-up's page), amount, status. */
export function TopupHistory({ config }: { config: BillingConfig | undefined }) {
  if (!config?.enabled) return null;
  return <TopupTable />;
}

function TopupTable() {
  const pages = useCursorPages();
  const trpc = useTRPC();
  const list = useQuery(trpc.billing.listTopups.queryOptions({ limit: HISTORY_PAGE, cursor: pages.cursor }));
  const topups = list.data?.topups ?? [];
  return (
    <section className="card" aria-labelledby="topups-title" data-testid="topup-history">
      <div className="section-head">
        <h2 id="topups-title">История пополнений</h2>
        <Button variant="secondary" onClick={() => void list.refetch()} disabled={list.isFetching} aria-label="Обновить историю пополнений">
          Обновить
        </Button>
      </div>
      <ErrorText error={apiError(list.error)} />
      {list.isPending ? <Loading /> : null}
      {list.data && topups.length === 0 ? <p className="muted">Пополнений пока не было.</p> : null}
      {topups.length > 0 ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="topups-table" aria-busy={list.isFetching}>
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
              {topups.map((t) => (
                <tr key={t.id} data-topup-id={t.id}>
                  <td data-label="Дата">
                    <Link to={`/topups/${t.id}`} aria-label={`Пополнение от ${formatDateTime(t.createdAt)}`}>
                      {formatDateTime(t.createdAt)}
                    </Link>
                  </td>
                  <td data-label="Сумма" className="num">
                    {formatMoney(t.amount, t.currency, 'amount')}
                  </td>
                  <td data-label="Статус">
                    <TopupStatusBadge status={t.status} />
                  </td>
                  <td data-label="Подробности">
                    {t.status === 'succeeded' && t.creditedAt ? `Зачислено ${formatDateTime(t.creditedAt)}` : null}
                    {t.status === 'canceled' ? cancellationReasonText(t.cancellationReason) : null}
                    {t.status === 'pending' && t.confirmationUrl ? <a href={t.confirmationUrl}>Продолжить оплату</a> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager pages={pages} nextCursor={list.data?.nextCursor} loading={list.isFetching} label="Страницы пополнений" />
    </section>
  );
}

/**
 * /app/topups/:id — where YooKassa sends the buyer back. The server re-reads a pending payment from
 * YooKassa when asked, so the page asks every 2 s a few times; the credit usually shows before the
 * notification even arrives.
 */
export function TopupReturnScreen({ id }: { id: string }) {
  const config = useBillingConfig();
  const [polls, setPolls] = useState(0);
  const trpc = useTRPC();
  const topup = useQuery(trpc.billing.getTopup.queryOptions({ id }));
  const t: Topup | undefined = topup.data;
  const status = t?.status;
  const balance = useQuery(trpc.account.balance.queryOptions(undefined, { enabled: status === 'succeeded' }));
  const waiting = status === 'pending' && polls < POLL_TIMES;

  // The payment is asked again POLL_MS after each answer (the first is the query's own). Each poll arms the
  // next one, so the chain goes on even if the refetch's isFetching flip is never rendered.
  const { refetch } = topup;
  useEffect(() => {
    if (!waiting || topup.isFetching) return;
    const timer = setTimeout(() => {
      setPolls(polls + 1);
      void refetch();
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [waiting, topup.isFetching, polls, refetch]);

  const checkAgain = () => {
    setPolls(0);
    void refetch();
  };

  return (
    <>
      <p>
        <Link to="/">← К балансу</Link>
      </p>
      <div className="page-head">
        <h1>Пополнение баланса</h1>
      </div>
      <section className="card" aria-labelledby="topup-outcome-title" data-testid="topup-outcome">
        <h2 id="topup-outcome-title">{t ? `Пополнение на ${formatMoney(t.amount, t.currency, 'amount')}` : 'Пополнение'}</h2>
        {topup.isPending ? <Loading text="Проверяем платёж…" /> : null}
        <ErrorText error={apiError(topup.error)} />
        <div role="status" aria-live="polite" aria-atomic="true" data-testid="topup-status">
          {t?.status === 'pending' ? (
            <>
              <p className="status-line">
                <TopupStatusBadge status="pending" />
                {waiting ? (
                  <span className="loading">
                    <span className="spinner" aria-hidden="true" />
                    Ждём подтверждения оплаты от ЮKassa…
                  </span>
                ) : (
                  <span>Оплата ещё не подтверждена.</span>
                )}
              </p>
              {waiting ? null : <p className="muted">Если вы уже оплатили, деньги поступят на баланс в течение нескольких минут: проверьте позже.</p>}
            </>
          ) : null}
          {t?.status === 'succeeded' ? (
            <>
              <p className="status-line">
                <TopupStatusBadge status="succeeded" />
                <span className="success">
                  Оплачено: на баланс зачислено {formatMoney(t.amount, t.currency, 'amount')}
                  {t.creditedAt ? ` (${formatDateTime(t.creditedAt)})` : ''}.
                </span>
              </p>
              {balance.data ? (
                <p>
                  Баланс теперь:{' '}
                  <strong data-testid="topup-balance">
                    <Money value={balance.data.balance} currency={config.data?.currency ?? t.currency} kind="amount" />
                  </strong>
                </p>
              ) : null}
            </>
          ) : null}
          {t?.status === 'canceled' ? (
            <>
              <p className="status-line">
                <TopupStatusBadge status="canceled" />
                <span>Платёж отменён: {cancellationReasonText(t.cancellationReason)}.</span>
              </p>
              <p className="muted">Баланс не изменился. Можно создать новое пополнение на странице баланса.</p>
            </>
          ) : null}
        </div>
        <ErrorText error={apiError(balance.error)} />
        {t ? (
          <p className="hint">
            Создано {formatDateTime(t.createdAt)}. Номер пополнения: <code>{t.id}</code>
          </p>
        ) : null}
        <div className="actions">
          {t?.status === 'pending' && !waiting ? (
            <Button variant="secondary" onClick={checkAgain} pending={topup.isFetching} pendingText="Проверяем…">
              Проверить ещё раз
            </Button>
          ) : null}
          {t?.status === 'pending' && t.confirmationUrl ? <a href={t.confirmationUrl}>Вернуться к оплате</a> : null}
          <Link to="/">Вернуться к балансу</Link>
        </div>
      </section>
    </>
  );
}
