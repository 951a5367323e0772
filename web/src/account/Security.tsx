// The account's security: change the password (the other sessions end, this one goes on with the fresh
// token), the list of sessions (Sessions.tsx) and sign out everywhere (this session too).
import { useMutation } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useState, type FormEvent } from 'react';
import { passwordChangeInput } from '@server/accounts/security-input';
import { Button, ConfirmDialog, ErrorText, Field } from '../shared/ui';
import { navigate } from '../app/router';
import { SessionList } from './Sessions';
import { currentSession, endSession, startSession } from '../app/session';
import { check, withServerErrors, type FieldErrors } from '../shared/validate';

export function SecuritySection() {
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [changed, setChanged] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const trpc = useTRPC();
  const change = useMutation(trpc.accountSecurity.changePassword.mutationOptions());
  const logoutAll = useMutation(trpc.accountSecurity.logoutAll.mutationOptions());

  const onChange = async (event: FormEvent) => {
    event.preventDefault();
    setChanged(null);
    const checked = check(passwordChangeInput, { currentPassword, newPassword });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    const result = await answerOf(change.mutateAsync(checked.data));
    if (!result) return;
    startSession(result.token, currentSession()?.email ?? '');
    setCurrentPassword('');
    setNewPassword('');
    setChanged(result.message);
  };

  const onLogoutAll = async () => {
    const result = await answerOf(logoutAll.mutateAsync());
    if (!result) return;
    navigate('/login', true);
    endSession(result.message);
  };

  const fieldErrors = withServerErrors(errors, apiError(change.error));
  return (
    <>
      <section className="card" aria-labelledby="password-title">
        <h2 id="password-title">Смена пароля</h2>
        <form onSubmit={onChange} noValidate>
          <Field label="Текущий пароль" error={fieldErrors.currentPassword}>
            {(props) => (
              <input
                {...props}
                name="currentPassword"
                type="password"
                autoComplete="current-password"
                value={currentPassword}
                onChange={(e) => setCurrentPassword(e.target.value)}
                required
              />
            )}
          </Field>
          <Field label="Новый пароль" hint="Не короче 6 символов. Остальные сеансы завершатся" error={fieldErrors.newPassword}>
            {(props) => (
              <input
                {...props}
                name="newPassword"
                type="password"
                autoComplete="new-password"
                value={newPassword}
                onChange={(e) => setNewPassword(e.target.value)}
                required
              />
            )}
          </Field>
          <div className="actions">
            <Button type="submit" pending={change.isPending} pendingText="Меняем…">
              Сменить пароль
            </Button>
            {changed ? (
              <span className="success" role="status">
                {changed}
              </span>
            ) : null}
          </div>
          {change.error && !apiError(change.error)?.fields ? <ErrorText error={apiError(change.error)} /> : null}
        </form>
      </section>

      <section className="card" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Сеансы</h2>
        <SessionList />
        <p className="muted">Если вы входили с чужого устройства или потеряли его, завершите все сеансы: войти придётся заново везде, здесь тоже.</p>
        <div className="actions">
          <Button variant="danger" onClick={() => setConfirming(true)}>
            Выйти на всех устройствах
          </Button>
        </div>
      </section>
      <ConfirmDialog
        open={confirming}
        title="Выйти на всех устройствах?"
        confirmText="Завершить все сеансы"
        pending={logoutAll.isPending}
        error={apiError(logoutAll.error)}
        onConfirm={onLogoutAll}
        onCancel={() => setConfirming(false)}
      >
        <p>Все выданные токены входа перестанут действовать сразу. API-ключи продолжат работать.</p>
      </ConfirmDialog>
    </>
  );
}
