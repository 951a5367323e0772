// «Банковские выписки» (/app/admin/bank): the operator uploads the bank's statement in the 1C format
// (POST /api/admin/bank-statements, multipart, the session's JWT), sees each incoming payment with the счёт
// proposed for it, ticks the matches and presses «Зачислить» (…/confirm). Below: the payments no счёт was found
// for — credited by hand to a счёт or an account, or set aside with a reason — and the счета with «Отметить
// оплаченным» for money seen by other means. Every action is audited by the server.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ApiError, Outputs } from '../app/api';
import { currentSession } from '../app/session';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { formatMoney, formatUtcDay } from '../shared/format';
import { Button, ErrorText, Field, Loading } from '../shared/ui';
import { AdminError } from './AdminError';

type Payment = Outputs['bankPayments']['list']['payments'][number];
type Imported = {
  importId: string;
  counts: { documents: number; incoming: number; new: number; duplicates: number; outgoing: number; foreign: number };
  payments: (Payment & { duplicate: boolean })[];
};
type Invoice = Outputs['adminInvoices']['list']['invoices'][number];

const STATUS_TEXT: Record<Payment['status'], string> = {
  matched: 'Предложен счёт',
  unmatched: 'Счёт не найден',
  credited: 'Зачислен',
  ignored: 'Отклонён',
};
const INVOICE_STATUS_TEXT: Record<Invoice['status'], string> = { pending: 'Ждёт оплаты', paid: 'Оплачен', cancelled: 'Отменён' };
const NETWORK_ERROR: ApiError = { message: 'Не удалось загрузить выписку: проверьте подключение и повторите', type: 'network_error' };
const today = () => new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);

async function uploadStatement(file: File): Promise<Imported> {
  const form = new FormData();
  form.append('file', file);
  const session = currentSession();
  let response: Response;
  try {
    response = await fetch('/api/admin/bank-statements', { method: 'POST', body: form, headers: session ? { authorization: `Bearer ${session.token}` } : {} });
  } catch {
    throw NETWORK_ERROR;
  }
  const body = (await response.json().catch(() => null)) as (Imported & { error?: ApiError }) | null;
  if (!response.ok || !body) throw body?.error ?? NETWORK_ERROR;
  return body;
}

function PaymentCells({ p }: { p: Payment }) {
  return (
    <>
      <td data-label="Поступил">{formatUtcDay(p.receivedOn)}</td>
      <td data-label="Сумма" className="num">
        {formatMoney(p.amount, p.currency, 'amount')}
      </td>
      <td data-label="Плательщик">
        {p.payerName}
        <br />
        <span className="muted">ИНН {p.payerInn || '—'}</span>
      </td>
      <td data-label="Назначение" className="wrap-anywhere">
        {p.purpose}
      </td>
    </>
  );
}

function UnmatchedRow({ p, onDone }: { p: Payment; onDone(): void }) {
  const trpc = useTRPC();
  const assign = useMutation(trpc.bankPayments.assign.mutationOptions());
  const ignore = useMutation(trpc.bankPayments.ignore.mutationOptions());
  const [target, setTarget] = useState(p.invoiceNumber ? String(p.invoiceNumber) : '');
  const [reason, setReason] = useState('');
  const onAssign = async (event: FormEvent) => {
    event.preventDefault();
    const t = target.trim();
    const body = /^\d+$/.test(t) ? { id: p.id, invoiceNumber: Number(t) } : { id: p.id, userId: t };
    if (await answerOf(assign.mutateAsync(body))) onDone();
  };
  const onIgnore = async (event: FormEvent) => {
    event.preventDefault();
    if (await answerOf(ignore.mutateAsync({ id: p.id, reason }))) onDone();
  };
  return (
    <tr data-payment={p.documentNumber}>
      <PaymentCells p={p} />
      <td data-label="Почему">{p.problemText}</td>
      <td data-label="Действие">
        <form className="inline-form" onSubmit={onAssign} noValidate aria-label={`Зачислить платёж № ${p.documentNumber}`}>
          <Field label="Счёт № или ID учётной записи">
            {(props) => <input {...props} name="assignTarget" autoComplete="off" value={target} onChange={(e) => setTarget(e.target.value)} />}
          </Field>
          <Button type="submit" pending={assign.isPending} pendingText="Зачисляем…">
            Зачислить
          </Button>
        </form>
        <ErrorText error={apiError(assign.error)} />
        <form className="inline-form" onSubmit={onIgnore} noValidate aria-label={`Отклонить платёж № ${p.documentNumber}`}>
          <Field label="Причина">{(props) => <input {...props} name="ignoreReason" value={reason} onChange={(e) => setReason(e.target.value)} />}</Field>
          <Button type="submit" variant="secondary" pending={ignore.isPending} pendingText="Отклоняем…">
            Отклонить
          </Button>
        </form>
        <ErrorText error={apiError(ignore.error)} />
      </td>
    </tr>
  );
}

function InvoiceRow({ invoice, onDone }: { invoice: Invoice; onDone(): void }) {
  const trpc = useTRPC();
  const markPaid = useMutation(trpc.adminInvoices.markPaid.mutationOptions());
  const [paidOn, setPaidOn] = useState(today());
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (await answerOf(markPaid.mutateAsync({ number: invoice.number, paidOn, note: '' }))) onDone();
  };
  return (
    <tr data-invoice={invoice.number}>
      <th scope="row">
        № {invoice.number} от {formatUtcDay(invoice.date)}
      </th>
      <td data-label="Покупатель">
        {invoice.customer.companyName}
        <br />
        <span className="muted">ИНН {invoice.customer.inn}</span>
      </td>
      <td data-label="Сумма" className="num">
        {formatMoney(invoice.amount, invoice.currency, 'amount')}
      </td>
      <td data-label="Состояние">
        {INVOICE_STATUS_TEXT[invoice.status]}
        {invoice.paidOn ? ` ${formatUtcDay(invoice.paidOn)}` : invoice.status === 'pending' ? ` до ${formatUtcDay(invoice.validUntil)}` : ''}
      </td>
      <td data-label="Действие">
        {invoice.status === 'paid' ? null : (
          <form className="inline-form" onSubmit={onSubmit} noValidate aria-label={`Отметить оплаченным счёт № ${invoice.number}`}>
            <Field label="Дата поступления">
              {(props) => <input {...props} type="date" name="paidOn" value={paidOn} max={today()} onChange={(e) => setPaidOn(e.target.value)} />}
            </Field>
            <Button type="submit" variant="secondary" pending={markPaid.isPending} pendingText="Зачисляем…">
              Отметить оплаченным
            </Button>
          </form>
        )}
        <ErrorText error={apiError(markPaid.error)} />
      </td>
    </tr>
  );
}

export function BankStatementsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const unmatched = useQuery(trpc.bankPayments.list.queryOptions({ status: 'unmatched' }));
  const invoices = useQuery(trpc.adminInvoices.list.queryOptions({}));
  const confirm = useMutation(trpc.bankPayments.confirm.mutationOptions());
  const [file, setFile] = useState<File | null>(null);
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<ApiError | undefined>();
  const [imported, setImported] = useState<Imported | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [credited, setCredited] = useState<number | null>(null);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.bankPayments.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.adminInvoices.list.pathKey() });
  };

  const onUpload = async (event: FormEvent) => {
    event.preventDefault();
    setCredited(null);
    if (!file) {
      setUploadError({ message: 'Выберите файл выписки', type: 'validation' });
      return;
    }
    setUploading(true);
    setUploadError(undefined);
    try {
      const answer = await uploadStatement(file);
      setImported(answer);
      setSelected(new Set(answer.payments.filter((p) => p.status === 'matched' && !p.duplicate).map((p) => p.id)));
      refresh();
    } catch (error) {
      setUploadError(error as ApiError);
    } finally {
      setUploading(false);
    }
  };

  const onConfirm = async () => {
    if (!imported || selected.size === 0) return;
    const answer = await answerOf(confirm.mutateAsync({ importId: imported.importId, payments: [...selected] }));
    if (!answer) return;
    const done = new Map(answer.payments.map((p) => [p.id, p.outcome]));
    setCredited(answer.payments.filter((p) => p.outcome === 'credited').length);
    setImported({
      ...imported,
      payments: imported.payments.map((p) =>
        done.get(p.id) === 'credited' ? { ...p, status: 'credited' } : done.get(p.id) === 'not_matched' ? { ...p, status: 'unmatched' } : p,
      ),
    });
    setSelected(new Set());
    refresh();
  };

  const toggle = (id: string, on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <>
      <section className="card" aria-labelledby="bank-upload-title" data-testid="bank-upload">
        <h2 id="bank-upload-title">Банковские выписки</h2>
        <p className="hint">
          Загрузите выписку из банка в формате 1С (файл kl_to_1c.txt, Windows-1251 или UTF-8). Каждому входящему платежу предлагается счёт: номер из назначения
          платежа, ИНН плательщика и сумма должны совпасть. Отметьте совпадения и нажмите «Зачислить» — деньги поступят на баланс один раз, даже если выписку
          загрузить снова.
        </p>
        <form className="inline-form" onSubmit={onUpload} noValidate aria-label="Загрузить выписку">
          <Field label="Файл выписки">
            {(props) => <input {...props} type="file" name="statementFile" accept=".txt,text/plain" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />}
          </Field>
          <div className="actions">
            <Button type="submit" pending={uploading} pendingText="Загружаем…">
              Загрузить
            </Button>
          </div>
        </form>
        <AdminError error={uploadError} />
        {imported ? (
          <div role="status" aria-live="polite" data-testid="bank-import-summary">
            <p>
              Документов: {imported.counts.documents}, входящих платежей: {imported.counts.incoming} (новых {imported.counts.new}, уже загруженных{' '}
              {imported.counts.duplicates}), исходящих пропущено: {imported.counts.outgoing}.
            </p>
            {credited !== null ? <p className="success">Зачислено платежей: {credited}.</p> : null}
          </div>
        ) : null}
        {imported && imported.payments.length > 0 ? (
          <>
            <div className="table-wrap">
              <table className="stack-table" data-testid="bank-import-payments">
                <thead>
                  <tr>
                    <th scope="col">Зачислить</th>
                    <th scope="col">Поступил</th>
                    <th scope="col" className="num">
                      Сумма
                    </th>
                    <th scope="col">Плательщик</th>
                    <th scope="col">Назначение</th>
                    <th scope="col">Счёт</th>
                  </tr>
                </thead>
                <tbody>
                  {imported.payments.map((p) => (
                    <tr key={p.id} data-payment={p.documentNumber}>
                      <td data-label="Зачислить">
                        {p.status === 'matched' ? (
                          <input
                            type="checkbox"
                            className="check"
                            checked={selected.has(p.id)}
                            aria-label={`Зачислить платёж № ${p.documentNumber}`}
                            onChange={(e) => toggle(p.id, e.target.checked)}
                          />
                        ) : null}
                      </td>
                      <PaymentCells p={p} />
                      <td data-label="Счёт">
                        {p.invoiceNumber ? `№ ${p.invoiceNumber}. ` : ''}
                        {p.duplicate ? 'Уже загружен: ' : ''}
                        {p.status === 'unmatched' ? p.problemText : STATUS_TEXT[p.status]}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="actions">
              <Button type="button" onClick={onConfirm} disabled={selected.size === 0} pending={confirm.isPending} pendingText="Зачисляем…">
                Зачислить
              </Button>
            </div>
            <ErrorText error={apiError(confirm.error)} />
          </>
        ) : null}
      </section>

      <section className="card" aria-labelledby="bank-unmatched-title" data-testid="bank-unmatched">
        <h2 id="bank-unmatched-title">Несопоставленные платежи</h2>
        <p className="hint">Зачислите вручную по номеру счёта или на учётную запись (её ID — в разделе «Пользователи»), или отклоните с причиной.</p>
        <AdminError error={apiError(unmatched.error)} />
        {unmatched.isPending ? <Loading /> : null}
        {unmatched.data && unmatched.data.payments.length === 0 ? <p className="muted">Несопоставленных платежей нет.</p> : null}
        {unmatched.data && unmatched.data.payments.length > 0 ? (
          <div className="table-wrap">
            <table className="stack-table">
              <thead>
                <tr>
                  <th scope="col">Поступил</th>
                  <th scope="col" className="num">
                    Сумма
                  </th>
                  <th scope="col">Плательщик</th>
                  <th scope="col">Назначение</th>
                  <th scope="col">Почему</th>
                  <th scope="col">Действие</th>
                </tr>
              </thead>
              <tbody>
                {unmatched.data.payments.map((p) => (
                  <UnmatchedRow key={p.id} p={p} onDone={refresh} />
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>

      <section className="card" aria-labelledby="bank-invoices-title" data-testid="bank-invoices">
        <h2 id="bank-invoices-title">Счета на оплату</h2>
        <AdminError error={apiError(invoices.error)} />
        {invoices.isPending ? <Loading /> : null}
        {invoices.data && invoices.data.invoices.length === 0 ? <p className="muted">Счетов пока не было.</p> : null}
        {invoices.data && invoices.data.invoices.length > 0 ? (
          <div className="table-wrap">
            <table className="stack-table">
              <thead>
                <tr>
                  <th scope="col">Счёт</th>
                  <th scope="col">Покупатель</th>
                  <th scope="col" className="num">
                    Сумма
                  </th>
                  <th scope="col">Состояние</th>
                  <th scope="col">Действие</th>
                </tr>
              </thead>
              <tbody>
                {invoices.data.invoices.map((invoice) => (
                  <InvoiceRow key={invoice.number} invoice={invoice} onDone={refresh} />
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
    </>
  );
}
