// «Реквизиты» (/app/admin/requisites): the operator's company as the users' счета на оплату and monthly акты
// print it. Until they are saved, users are told their documents are not available yet. Saving is audited.
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useEffect, useState, type FormEvent } from 'react';
import { type CLOSING_DOCUMENT_SETS, operatorRequisitesInput, VAT_RATES } from '@server/statement/input';
import { Field, Loading, SubmitRow } from '../shared/ui';
import { formatDateTime } from '../shared/format';
import { check, type FieldErrors } from '../shared/validate';
import { AdminError } from './AdminError';

const EMPTY = {
  companyName: '',
  inn: '',
  kpp: '',
  ogrn: '',
  address: '',
  bankName: '',
  bik: '',
  account: '',
  correspondentAccount: '',
  vatNote: '',
  /** '' — без НДС; otherwise the rate in percent as text. */
  vatRate: '',
  directorName: '',
  accountantName: '',
  closingDocuments: 'act' as ClosingDocumentSet,
  updStatus: null as 1 | 2 | null,
};
type Form = typeof EMPTY;
type ClosingDocumentSet = (typeof CLOSING_DOCUMENT_SETS)[number];
type TextField = Exclude<keyof Form, 'vatRate' | 'closingDocuments' | 'updStatus'>;

/** The monthly closing documents (statement/closing-documents.ts): which are issued, and the УПД's status. */
const CLOSING_SETS: { value: ClosingDocumentSet; label: string }[] = [
  { value: 'act', label: 'Акт' },
  { value: 'act_and_upd', label: 'Акт и УПД' },
  { value: 'upd', label: 'УПД (вместо акта)' },
];

/** The server's requisites as the form holds them: the НДС rate as the select's value. */
const formOf = ({ vatRate, ...fields }: Omit<Form, 'vatRate'> & { vatRate: number | null }): Form => ({
  ...fields,
  vatRate: vatRate === null ? '' : String(vatRate),
});

const FIELDS: { name: TextField; label: string; hint?: string; numeric?: boolean }[] = [
  { name: 'companyName', label: 'Название организации', hint: 'Как в документах: ООО «Ромашка», ИП Иванов Иван Иванович' },
  { name: 'inn', label: 'ИНН', hint: '10 цифр у организации, 12 у ИП', numeric: true },
  { name: 'kpp', label: 'КПП', hint: '9 цифр; у ИП оставьте пустым', numeric: true },
  { name: 'ogrn', label: 'ОГРН', hint: '13 цифр, ОГРНИП — 15', numeric: true },
  { name: 'address', label: 'Адрес', hint: 'Юридический адрес' },
  { name: 'bankName', label: 'Банк' },
  { name: 'bik', label: 'БИК', hint: '9 цифр', numeric: true },
  { name: 'account', label: 'Расчётный счёт', hint: '20 цифр', numeric: true },
  { name: 'correspondentAccount', label: 'Корреспондентский счёт', hint: '20 цифр', numeric: true },
  { name: 'vatNote', label: 'Строка об НДС', hint: 'Под итогом документа, например «Без НДС (УСН)»; пусто — не печатается' },
  { name: 'directorName', label: 'Руководитель', hint: 'Фамилия и инициалы у строки подписи, например «Иванов И. И.»; пусто — место для записи от руки' },
  { name: 'accountantName', label: 'Главный бухгалтер', hint: 'Бухгалтер у строки подписи счёта; у ИП без бухгалтера оставьте пустым' },
];

export function RequisitesScreen() {
  const trpc = useTRPC();
  const saved = useQuery(trpc.adminRequisites.get.queryOptions());
  const [form, setForm] = useState<Form>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [updatedAt, setUpdatedAt] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const save = useMutation(trpc.adminRequisites.update.mutationOptions());
  useEffect(() => {
    const r = saved.data?.requisites;
    if (!r) return;
    const { updatedAt: at, ...fields } = r;
    setForm(formOf(fields));
    setUpdatedAt(at);
  }, [saved.data]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    const checked = check(operatorRequisitesInput, { ...form, vatRate: form.vatRate === '' ? null : Number(form.vatRate) });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const result = await answerOf(save.mutateAsync(checked.data));
    if (!result) return;
    const { updatedAt: at, ...fields } = result;
    setForm(formOf(fields));
    setUpdatedAt(at);
    setDone(true);
  };
  const server = apiError(save.error)?.fields ?? {};

  return (
    <section className="card" aria-labelledby="requisites-admin-title" data-testid="operator-requisites">
      <h2 id="requisites-admin-title">Реквизиты для счетов и актов</h2>
      <p className="hint">
        С этими реквизитами пользователи выставляют себе счета на оплату банковским переводом и скачивают акты оказанных услуг по месяцам. Уже выставленный счёт
        сохраняет реквизиты, с которыми был выставлен.
        {saved.data && updatedAt === null ? ' Пока реквизиты не сохранены, документы пользователям недоступны.' : ''}
        {updatedAt ? ` Изменены ${formatDateTime(updatedAt)}.` : ''}
      </p>
      <AdminError error={apiError(saved.error)} />
      {saved.isPending ? <Loading /> : null}
      <form onSubmit={onSubmit} noValidate>
        <div className="grid">
          {FIELDS.map((f) => (
            <Field key={f.name} label={f.label} hint={f.hint} error={errors[f.name] ?? server[f.name]}>
              {(props) => (
                <input
                  {...props}
                  name={f.name}
                  inputMode={f.numeric ? 'numeric' : undefined}
                  autoComplete="off"
                  value={form[f.name]}
                  onChange={(e) => setForm({ ...form, [f.name]: e.target.value })}
                />
              )}
            </Field>
          ))}
          <Field label="Ставка НДС" hint="Суммы счетов включают НДС: счёт печатает «В том числе НДС», без НДС — «Без НДС»" error={errors.vatRate ?? server.vatRate}>
            {(props) => (
              <select {...props} name="vatRate" value={form.vatRate} onChange={(e) => setForm({ ...form, vatRate: e.target.value })}>
                <option value="">Без НДС</option>
                {VAT_RATES.map((rate) => (
                  <option key={rate} value={String(rate)}>
                    {rate}%
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            label="Закрывающие документы"
            hint="Выпускаются каждому заказчику с расходами после окончания месяца; выпущенный документ не меняется"
            error={errors.closingDocuments ?? server.closingDocuments}
          >
            {(props) => (
              <select
                {...props}
                name="closingDocuments"
                value={form.closingDocuments}
                onChange={(e) => setForm({ ...form, closingDocuments: e.target.value as ClosingDocumentSet })}
              >
                {CLOSING_SETS.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            label="Статус УПД"
            hint="1 — УПД служит и счётом-фактурой (для плательщика НДС), 2 — только передаточный документ"
            error={errors.updStatus ?? server.updStatus}
          >
            {(props) => (
              <select
                {...props}
                name="updStatus"
                value={form.updStatus === null ? '' : String(form.updStatus)}
                onChange={(e) => setForm({ ...form, updStatus: e.target.value === '' ? null : (Number(e.target.value) as 1 | 2) })}
              >
                <option value="">По ставке НДС (1 с НДС, 2 без)</option>
                <option value="1">1</option>
                <option value="2">2</option>
              </select>
            )}
          </Field>
        </div>
        <SubmitRow label="Сохранить реквизиты" pending={save.isPending} done={done} error={apiError(save.error)} />
      </form>
    </section>
  );
}
