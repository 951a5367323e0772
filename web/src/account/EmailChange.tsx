// «Смена e-mail»: the new address and the password; the server mails a link to the new address, and
// the address changes when it is opened.
import { useState, type FormEvent } from 'react';
import { emailChangeInput } from '@server/trpc/routers/auth-input';
import { api } from '../app/api';
import { Field, SubmitRow } from '../shared/ui';
import { useAction, useMe } from '../app/hooks';
import { currentSession } from '../app/session';
import { check, type FieldErrors } from '../shared/validate';

export function EmailChangeSection() {
  const me = useMe(currentSession()?.token ?? '');
  const [newEmail, setNewEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [sent, setSent] = useState<string | null>(null);
  const request = useAction((values: { newEmail: string; password: string }) => api.emailChange.request.mutate(values));

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSent(null);
    const checked = check(emailChangeInput, { newEmail, password });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const result = await request.run(checked.data);
    if (!result) {
      return;
    }
    setSent(`${result.message}: ${checked.data.newEmail}`);
    setPassword('');
  };
  // The server's refusal of a field (a wrong password, the same address) goes under that field.
  const serverFields = request.error?.fields ?? {};

  return (
    <section className="card" aria-labelledby="email-change-title" data-testid="email-change">
      <h2 id="email-change-title">Смена e-mail</h2>
      <p className="hint">
        Сейчас: <b className="wrap-anywhere">{me.data?.email ?? currentSession()?.email}</b>
        {me.data && !me.data.emailVerified ? ' (не подтверждён)' : ''}. На новый адрес придёт ссылка; адрес сменится, когда вы её откроете (она действует 1 час). На
        прежний адрес придёт уведомление.
      </p>
      <form onSubmit={onSubmit} noValidate>
        <div className="grid">
          <Field label="Новый e-mail" error={errors.newEmail ?? serverFields.newEmail}>
            {(props) => <input {...props} name="newEmail" type="email" autoComplete="email" value={newEmail} onChange={(e) => setNewEmail(e.target.value)} />}
          </Field>
          <Field label="Текущий пароль" error={errors.password ?? serverFields.password}>
            {(props) => (
              <input
                {...props}
                name="currentPassword"
                type="password"
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
        </div>
        <SubmitRow label="Отправить ссылку" pending={request.pending} pendingText="Отправляем…" done={sent !== null} doneText={sent} error={request.error} />
      </form>
    </section>
  );
}
