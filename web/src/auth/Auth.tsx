// Registration and login: the forms check input with the server's schemas, then keep the JWT.
import { useMutation } from '@tanstack/react-query';
import { answerOf, apiError, useTRPCClient } from '../app/trpc';
import { useEffect, useState, type FormEvent } from 'react';
import { credentialsInput, loginInput } from '@server/accounts/auth-input';
import { Button, ErrorText, Field } from '../shared/ui';
import { Money } from '../shared/Money';
import { SupportLine } from '../shared/SupportContact';
import { useBillingConfig } from '../shared/billing-config';
import { Link, navigate } from '../app/router';
import { startSession, takeEndReason } from '../app/session';
import { check, type FieldErrors } from '../shared/validate';
import { REFERRAL_CODE_KEY } from '../referrals/texts';

/** The screen that was asked for before the login page (App puts it in ?next=), if it is one of ours. */
function requestedPath(): string | null {
  const next = new URLSearchParams(window.location.search).get('next');
  return next?.startsWith('/') && !next.startsWith('//') && next !== '/login' && next !== '/register' ? next : null;
}

/**
 * The invitation code of the link the visitor came by (/app/register?ref=<code>), kept in this tab so that a
 * detour through the login form does not lose it.
 */
function invitationCode(): string | null {
  const fromLink = new URLSearchParams(window.location.search).get('ref')?.trim() || null;
  try {
    if (fromLink) sessionStorage.setItem(REFERRAL_CODE_KEY, fromLink);
    return fromLink ?? sessionStorage.getItem(REFERRAL_CODE_KEY);
  } catch {
    // Storage refused (a private window's settings): the code of the address still counts.
    return fromLink;
  }
}

function forgetInvitationCode(): void {
  try {
    sessionStorage.removeItem(REFERRAL_CODE_KEY);
  } catch {
    // Nothing was kept.
  }
}

function AuthForm({ mode }: { mode: 'login' | 'register' }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // Shown once the server said the password is right and two-factor login is on (code totp_required).
  const [askCode, setAskCode] = useState(false);
  const [totpCode, setTotpCode] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [notice] = useState(() => (mode === 'login' ? takeEndReason() : null));
  const [invitedWith] = useState(() => (mode === 'register' ? invitationCode() : null));
  const client = useTRPCClient();
  const submit = useMutation({
    mutationFn: (values: { email: string; password: string }) =>
      mode === 'register'
        ? client.auth.register.mutate(invitedWith ? { ...values, referralCode: invitedWith } : values)
        : client.auth.login.mutate(askCode ? { ...values, totpCode: totpCode.trim() } : values),
  });
  const submitError = apiError(submit.error);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = check(mode === 'register' ? credentialsInput : loginInput, { email, password });
    const loginErrors: FieldErrors = {};
    if (mode === 'login') {
      // The login schema takes any text (a wrong pair is the server's 401); empty or malformed fields need no request.
      if (!credentialsInput.shape.email.safeParse(email).success) loginErrors.email = 'Укажите корректный e-mail, например user@example.com';
      if (password === '') loginErrors.password = 'Введите пароль';
      if (askCode && totpCode.trim() === '') loginErrors.totpCode = 'Введите код из приложения или код восстановления';
    }
    if (!checked.ok || Object.keys(loginErrors).length > 0) {
      setErrors({ ...(checked.ok ? {} : checked.errors), ...loginErrors });
      return;
    }
    setErrors({});
    const result = await answerOf(submit.mutateAsync(checked.data));
    if (!result) return;
    setAskCode(false);
    if (mode === 'register') forgetInvitationCode();
    startSession(result.token, result.user.email);
    navigate(requestedPath() ?? '/', true);
  };

  const needsCode = submitError?.code === 'totp_required' || submitError?.code === 'totp_invalid';
  useEffect(() => {
    if (needsCode && !askCode) setAskCode(true);
  }, [needsCode, askCode]);
  // The code's own refusal goes under its field; "enter the code" is said by the field appearing.
  const codeError = errors.totpCode ?? (submitError?.code === 'totp_invalid' ? submitError.message : undefined);
  const formError = needsCode ? undefined : submitError;

  const register = mode === 'register';
  return (
    <main className="auth" id="main">
      <div className="card auth-card">
        <p className="brand">Conduit</p>
        <h1>{register ? 'Регистрация' : 'Вход в панель'}</h1>
        {notice ? (
          <p className="notice" role="status">
            {notice}
          </p>
        ) : null}
        {register ? <RegistrationBonus /> : null}
        {register && invitedWith ? (
          <p className="hint" data-testid="invited-notice">
            Вы регистрируетесь по приглашению.
          </p>
        ) : null}
        <form onSubmit={onSubmit} noValidate>
          <Field label="E-mail" error={errors.email}>
            {(props) => <input {...props} name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} required />}
          </Field>
          <Field label="Пароль" hint={register ? 'Не короче 6 символов' : undefined} error={errors.password}>
            {(props) => (
              <input
                {...props}
                name="password"
                type="password"
                autoComplete={register ? 'new-password' : 'current-password'}
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
                  data-testid="login-totp"
                />
              )}
            </Field>
          ) : null}
          <div className="actions">
            <Button type="submit" pending={submit.isPending} pendingText={register ? 'Регистрируем…' : 'Входим…'}>
              {register ? 'Зарегистрироваться' : 'Войти'}
            </Button>
          </div>
          <ErrorText error={formError} />
        </form>
        {register ? null : (
          <p className="switch">
            <Link to="/forgot">Забыли пароль?</Link>
          </p>
        )}
        <p className="switch">
          {register ? (
            <>
              Уже есть аккаунт? <Link to="/login">Войти</Link>
            </>
          ) : (
            <>
              Нет аккаунта? <Link to="/register">Зарегистрироваться</Link>
            </>
          )}
        </p>
        {register ? null : <SupportLine />}
      </div>
    </main>
  );
}

export const LoginScreen = () => <AuthForm mode="login" />;
export const RegisterScreen = () => <AuthForm mode="register" />;

/** The starting balance, in the service's currency (GET /api/billing/config needs no login). */
function RegistrationBonus() {
  const config = useBillingConfig().data;
  if (!config || config.registrationBonus <= 0) return null;
  return (
    <p className="muted" data-testid="registration-bonus">
      После регистрации на балансе будет стартовый бонус <Money value={config.registrationBonus} currency={config.currency} kind="amount" />.
    </p>
  );
}
