// «Реквизиты для документов»: the customer's own company — name, ИНН, КПП, address — printed on the счета на
// оплату and the акты (optional: without a name the documents name the account's e-mail).
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useEffect, useState, type FormEvent } from 'react';
import { customerRequisitesInput } from '@server/statement/input';
import { Field, Loading, SubmitRow } from '../shared/ui';
import { check, type FieldErrors } from '../shared/validate';

export function RequisitesSection() {
  const trpc = useTRPC();
  const saved = useQuery(trpc.statement.requisites.queryOptions());
  const [form, setForm] = useState({ companyName: '', inn: '', kpp: '', address: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState(false);
  const save = useMutation(trpc.statement.updateRequisites.mutationOptions());
  useEffect(() => {
    if (saved.data) setForm(saved.data);
  }, [saved.data]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    const checked = check(customerRequisitesInput, form);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const result = await answerOf(save.mutateAsync(checked.data));
    if (result) {
      setForm(result);
      setDone(true);
    }
  };
  const server = apiError(save.error)?.fields ?? {};
  return (
    <section className="card" aria-labelledby="requisites-title" data-testid="customer-requisites">
      <h2 id="requisites-title">Реквизиты для документов</h2>
      <p className="hint">Необязательно: название организации, ИНН, КПП и адрес попадут в новые счета и акты вместо e-mail.</p>
      {saved.isPending ? <Loading /> : null}
      <form onSubmit={onSubmit} noValidate>
        <div className="grid">
          <Field label="Название организации" error={errors.companyName ?? server.companyName}>
            {(props) => (
              <input
                {...props}
                name="companyName"
                autoComplete="organization"
                value={form.companyName}
                onChange={(e) => setForm({ ...form, companyName: e.target.value })}
              />
            )}
          </Field>
          <Field label="ИНН" hint="10 цифр у организации, 12 у ИП" error={errors.inn ?? server.inn}>
            {(props) => <input {...props} name="inn" inputMode="numeric" value={form.inn} onChange={(e) => setForm({ ...form, inn: e.target.value })} />}
          </Field>
          <Field label="КПП" hint="9 цифр; у ИП оставьте пустым" error={errors.kpp ?? server.kpp}>
            {(props) => <input {...props} name="kpp" inputMode="numeric" value={form.kpp} onChange={(e) => setForm({ ...form, kpp: e.target.value })} />}
          </Field>
          <Field label="Адрес" hint="Юридический адрес" error={errors.address ?? server.address}>
            {(props) => (
              <input {...props} name="address" autoComplete="street-address" value={form.address} onChange={(e) => setForm({ ...form, address: e.target.value })} />
            )}
          </Field>
        </div>
        <SubmitRow label="Сохранить реквизиты" pending={save.isPending} done={done} error={apiError(save.error)} />
      </form>
    </section>
  );
}
