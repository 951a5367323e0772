// «Забыли пароль?»: a page asking for the e-mail, and the page the mailed link opens, which sets the new
// password and signs in only when its form is submitted. With two-factor login on, the server asks for a
// code (totp_required) and the page shows its field; without it nothing changes. Without a mail server
// the server's 503 message (ask the operator) is shown.
import { useMutation } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useEffect, useState, type FormEvent } from 'react';
import { passwordResetConfirmInput, passwordResetRequestInput } from '@server/accounts/security-input';
import { Button, ErrorText, Field } from '../shared/ui';
import { Link, navigate } from '../app/router';
import { startSession } from '../app/session';
import { check, type FieldErrors } from '../shared/validate';

export function ForgotPasswordScreen() {
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [sent, setSent] = useState<string | null>(null);
  const trpc = useTRPC();
  const submit = useMutation(trpc.accountSecurity.requestPasswordReset.mutationOptions());

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = check(passwordResetRequestInput, { email });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    const result = await answerOf(submit.mutateAsync(checked.data));
    if (result) setSent(result.message);
  };

  return (
    <main className="auth" id="main">
      <div className="card auth-card">
        <p className="brand">Conduit</p>
        <h1>Восстановление пароля</h1>
        {sent ? (
          <p className="notice" role="status" data-testid="reset-sent">
            {sent}
          </p>
        ) : (
          <form onSubmit={onSubmit} noValidate>
            <p className="muted">Укажите e-mail, с которым вы регистрировались: мы пришлём ссылку для смены пароля.</p>
            <Field label="E-mail" error={errors.email}>
              {(props) => <input {...props} name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} required />}
            </Field>
            <div className="actions">
              <Button type="submit" pending={submit.isPending} pendingText="Отправляем…">
                Прислать ссылку
              </Button>
            </div>
            <ErrorText error={apiError(submit.error)} />
          </form>
        )}
        <p className="switch">
          Вспомнили пароль? <Link to="/login">Войти</Link>
        </p>
      </div>
    </main>
  );
}

export function ResetPasswordScreen() {
  const [token] = useState(() => new URLSearchParams(window.location.search).get('token') ?? '');
  const [password, setPassword] = useState('');
  // Shown once the server said two-factor login is on for the account (code totp_required).
  const [askCode, setAskCode] = useState(false);
  const [totpCode, setTotpCode] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const trpc = useTRPC();
  const submit = useMutation(trpc.accountSecurity.confirmPasswordReset.mutationOptions());

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = check(passwordResetConfirmInput, { token, password, ...(askCode ? { totpCode: totpCode.trim() } : {}) });
    if (!checked.ok) return setErrors(checked.errors);
    if (askCode && totpCode.trim() === '') return setErrors({ totpCode: 'Введите код из приложения или код восстановления' });
    setErrors({});
    const result = await answerOf(submit.mutateAsync(checked.data));
    if (!result) return;
    startSession(result.token, result.user.email);
    navigate('/', true);
  };

  const submitError = apiError(submit.error);
  const needsCode = submitError?.code === 'totp_required' || submitError?.code === 'totp_invalid';
  useEffect(() => {
    if (needsCode && !askCode) setAskCode(true);
  }, [needsCode, askCode]);
  const codeError = errors.totpCode ?? (submitError?.code === 'totp_invalid' ? submitError.message : undefined);
  const formError = errors.token ?? (needsCode ? undefined : submitError);

  return (
    <main className="auth" id="main">
      <div className="card auth-card">
        <p className="brand">Conduit</p>
        <h1>Новый пароль</h1>
        {token === '' ? (
          <p className="error" role="alert">
            В ссылке нет кода сброса: откройте ссылку из письма целиком или <Link to="/forgot">запросите новую</Link>.
          </p>
        ) : (
          <form onSubmit={onSubmit} noValidate>
            <Field label="Новый пароль" hint="Не короче 6 символов. После смены все прежние сеансы завершатся" error={errors.password}>
              {(props) => (
                <input
                  {...props}
                  name="password"
                  type="password"
                  autoComplete="new-password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  required
                />
              )}
            </Field>
            {askCode ? (
              <Field
                label="Код подтверждения"
                hint="Двухфакторный вход включён: введите 6 цифр из приложения-аутентификатора или один из кодов восстановления"
                error={codeError}
              >
                {(props) => (
                  <input
                    {...props}
                    name="totpCode"
                    inputMode="numeric"
                    autoComplete="one-time-code"
                    autoFocus
                    value={totpCode}
                    onChange={(e) => setTotpCode(e.target.value)}
                    data-testid="reset-totp"
                  />
                )}
              </Field>
            ) : null}
            <div className="actions">
              <Button type="submit" pending={submit.isPending} pendingText="Сохраняем…">
                Сохранить и войти
              </Button>
            </div>
            <ErrorText error={formError} />
          </form>
        )}
        <p className="switch">
          <Link to="/forgot">Запросить новую ссылку</Link> · <Link to="/login">Войти</Link>
        </p>
      </div>
    </main>
  );
}
