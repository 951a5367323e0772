// «Счета на оплату» on the «Выписка» screen: «Выставить счёт» for an amount to pay by bank transfer
// (POST /api/account/invoices), then the счета issued, newest first, each with its PDF
// (GET /api/account/invoices/{number}.pdf, fetched with the session's JWT by FileDownload) and its state: waiting
// for payment until its last day, paid on the day the money came, or cancelled.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { createInvoiceInput } from '@server/statement/input';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { RequisitesLink } from '../organizations/RequisitesLink';
import { FileDownload } from '../shared/FileDownload';
import { currencySymbol, formatMoney, formatUtcDay } from '../shared/format';
import { Button, ErrorText, Field, Loading } from '../shared/ui';
import { check, decimalInput } from '../shared/validate';

/** «Ждёт оплаты до 09.12.2026», «Оплачен 02.12.2026», «Отменён». */
function invoiceState(invoice: { status: 'pending' | 'paid' | 'cancelled'; validUntil: string; paidOn: string | null }): string {
  if (invoice.status === 'paid') return invoice.paidOn ? `Оплачен ${formatUtcDay(invoice.paidOn)}` : 'Оплачен';
  if (invoice.status === 'cancelled') return 'Отменён';
  return `Ждёт оплаты до ${formatUtcDay(invoice.validUntil)}`;
}

export function InvoicesSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.invoices.list.queryOptions());
  const create = useMutation(trpc.invoices.create.mutationOptions());
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [issued, setIssued] = useState<number | null>(null);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setIssued(null);
    const checked = check(createInvoiceInput, { amount: decimalInput(amount) });
    if (!checked.ok) {
      setError(checked.errors.amount ?? checked.message);
      return;
    }
    setError(undefined);
    const invoice = await answerOf(create.mutateAsync(checked.data));
    if (!invoice) return;
    setIssued(invoice.number);
    setAmount('');
    void queryClient.invalidateQueries({ queryKey: trpc.invoices.list.pathKey() });
  };

  const data = list.data;
  const refusal = apiError(create.error);
  return (
    <section className="card" aria-labelledby="invoices-title" data-testid="invoices">
      <h2 id="invoices-title">Счета на оплату</h2>
      <p className="hint">
        Для оплаты банковским переводом от организации: выставьте счёт на нужную сумму, оплатите его, указав номер счёта в назначении платежа, — деньги поступят на
        баланс. Реквизиты вашей организации для счёта указываются в <RequisitesLink />.
      </p>
      <ErrorText error={apiError(list.error)} />
      {list.isPending ? <Loading /> : null}
      {data && !data.requisitesReady ? (
        <p className="warning" role="status" data-testid="invoices-unavailable">
          Счёт пока выставить нельзя: оператор сервиса ещё не указал реквизиты своей организации.
        </p>
      ) : null}
      {data?.requisitesReady ? (
        <form className="inline-form invoice-form" onSubmit={onSubmit} noValidate aria-label="Выставить счёт" data-testid="invoice-form">
          <Field
            label={`Сумма счёта, ${currencySymbol(data.currency)}`}
            hint={`От ${formatMoney(data.minAmount, data.currency, 'amount')} до ${formatMoney(data.maxAmount, data.currency, 'amount')}`}
            error={error ?? refusal?.fields?.amount}
          >
            {(props) => <input {...props} name="invoiceAmount" inputMode="decimal" autoComplete="off" value={amount} onChange={(e) => setAmount(e.target.value)} />}
          </Field>
          <div className="actions">
            <Button type="submit" pending={create.isPending} pendingText="Выставляем…">
              Выставить счёт
            </Button>
          </div>
        </form>
      ) : null}
      <ErrorText error={refusal?.fields ? undefined : refusal} />
      {issued !== null ? (
        <p className="success" role="status" data-testid="invoice-issued">
          Счёт № {issued} выставлен: скачайте его PDF в списке ниже.
        </p>
      ) : null}
      {data && data.invoices.length > 0 ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="invoices-table">
            <thead>
              <tr>
                <th scope="col">Счёт</th>
                <th scope="col" className="num">
                  Сумма
                </th>
                <th scope="col">Состояние</th>
                <th scope="col">Документ</th>
              </tr>
            </thead>
            <tbody>
              {data.invoices.map((invoice) => (
                <tr key={invoice.id} data-number={invoice.number}>
                  <th scope="row">
                    № {invoice.number} от {formatUtcDay(invoice.date)}
                  </th>
                  <td data-label="Сумма" className="num">
                    {formatMoney(invoice.amount, invoice.currency, 'amount')}
                  </td>
                  <td data-label="Состояние" data-testid={`invoice-status-${invoice.number}`}>
                    {invoiceState(invoice)}
                  </td>
                  <td data-label="Документ">
                    <FileDownload url={invoice.pdfUrl} label="Счёт, PDF" testId={`invoice-${invoice.number}`} title={`Счёт на оплату № ${invoice.number}`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : data?.requisitesReady ? (
        <p className="muted">Счетов пока не было.</p>
      ) : null}
    </section>
  );
}
