// «Смена e-mail»: the new address and the password; the server mails a link to the new address, and
// the address changes when it is opened.
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useState, type FormEvent } from 'react';
import { emailChangeInput } from '@server/accounts/auth-input';
import { Field, SubmitRow } from '../shared/ui';
import { currentSession } from '../app/session';
import { check, type FieldErrors } from '../shared/validate';

export function EmailChangeSection() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions(undefined, { select: (answer) => answer.user }));
  const [newEmail, setNewEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [sent, setSent] = useState<string | null>(null);
  const request = useMutation(trpc.emailChange.request.mutationOptions());

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSent(null);
    const checked = check(emailChangeInput, { newEmail, password });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const result = await answerOf(request.mutateAsync(checked.data));
    if (!result) {
      return;
    }
    setSent(`${result.message}: ${checked.data.newEmail}`);
    setPassword('');
  };
  // The server's refusal of a field (a wrong password, the same address) goes under that field.
  const serverFields = apiError(request.error)?.fields ?? {};

  return (
    <section className="card" aria-labelledby="email-change-title" data-testid="email-change">
      <h2 id="email-change-title">Смена e-mail</h2>
      <p className="hint">
        Сейчас: <b className="wrap-anywhere">{me.data?.email ?? currentSession()?.email}</b>
        {me.data && !me.data.emailVerified ? ' (не подтверждён)' : ''}. На новый адрес придёт ссылка; адрес сменится, когда вы её откроете (она действует 1 час). На
        прежний адрес придёт уведомление со ссылкой «это был не я — отменить».
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
        <SubmitRow
          label="Отправить ссылку"
          pending={request.isPending}
          pendingText="Отправляем…"
          done={sent !== null}
          doneText={sent}
          error={apiError(request.error)}
        />
      </form>
    </section>
  );
}
