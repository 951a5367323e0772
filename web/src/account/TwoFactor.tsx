// «Двухфакторный вход»: set up with the QR code and a first code, the recovery codes shown once, and
// switching it off with a code. The QR code is an SVG drawn by the server, shown as an image (never
// inserted as markup).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useState, type FormEvent } from 'react';
import { twoFactorCodeInput } from '@server/accounts/auth-input';
import type { Outputs } from '../app/api';
import { Button, CopyButton, ErrorText, Field, Loading } from '../shared/ui';
import { check } from '../shared/validate';

type Setup = Outputs['twoFactor']['setup'];

/** «ABCD EFGH IJKL …»: the secret in groups of four, as a person types it from the screen. */
export const groupedSecret = (secret: string) => secret.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');

/**
 * The key for typing by hand, in groups of four (the copy button copies it without spaces), and, for a
 * phone where the QR code cannot be scanned with the same phone, a link that opens the authenticator app.
 */
function SecretForPhone({ setup }: { setup: Setup }) {
  const plain = setup.secret.replace(/\s+/g, '');
  return (
    <div className="two-factor-manual">
      <p className="actions">
        <a className="btn btn-secondary" href={setup.otpauthUrl} data-testid="two-factor-open-app">
          Открыть в приложении
        </a>
        <span className="hint">На телефоне: ссылка сразу добавит Conduit в приложение-аутентификатор.</span>
      </p>
      <p className="label" id="two-factor-secret-label">
        Ключ для ввода вручную
      </p>
      <div className="copy-value">
        <code className="secret-groups" aria-labelledby="two-factor-secret-label" data-testid="two-factor-secret">
          {groupedSecret(plain)}
        </code>
        <CopyButton text={plain} label="Скопировать ключ" />
      </div>
    </div>
  );
}

function CodeForm({
  label,
  hint,
  submitText,
  pendingText,
  testId,
  onCode,
  pending,
  error,
}: {
  label: string;
  hint: string;
  submitText: string;
  pendingText: string;
  testId: string;
  onCode(code: string): void;
  pending: boolean;
  error: string | undefined;
}) {
  const [code, setCode] = useState('');
  const [invalid, setInvalid] = useState<string | undefined>();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const checked = check(twoFactorCodeInput, { code });
    if (!checked.ok) {
      setInvalid(checked.errors.code ?? checked.message);
      return;
    }
    setInvalid(undefined);
    onCode(checked.data.code);
  };
  return (
    <form onSubmit={onSubmit} noValidate data-testid={testId}>
      <Field label={label} hint={hint} error={invalid ?? error}>
        {(props) => (
          <input {...props} name="code" inputMode="numeric" autoComplete="one-time-code" value={code} maxLength={64} onChange={(e) => setCode(e.target.value)} />
        )}
      </Field>
      <div className="actions">
        <Button type="submit" pending={pending} pendingText={pendingText}>
          {submitText}
        </Button>
      </div>
    </form>
  );
}

/** The code's refusal under the field; anything else (a 429, the network) under the form. */
const fieldError = (error: { code?: string; fields?: Record<string, string>; message: string } | undefined) =>
  error && (error.code === 'totp_invalid' || error.fields?.code) ? error.message : undefined;
const formError = <E extends { code?: string; fields?: Record<string, string> }>(error: E | undefined) =>
  error && !(error.code === 'totp_invalid' || error.fields?.code) ? error : undefined;

export function TwoFactorSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.twoFactor.status.queryOptions());
  const [setup, setSetup] = useState<Setup | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [disabledNotice, setDisabledNotice] = useState<string | null>(null);
  const start = useMutation(trpc.twoFactor.setup.mutationOptions());
  const enable = useMutation(trpc.twoFactor.enable.mutationOptions());
  const disable = useMutation(trpc.twoFactor.disable.mutationOptions());

  const onStart = async () => {
    setDisabledNotice(null);
    const result = await answerOf(start.mutateAsync());
    if (result) setSetup(result);
  };
  const onEnable = async (code: string) => {
    const result = await answerOf(enable.mutateAsync({ code }));
    if (!result) return;
    setSetup(null);
    setRecoveryCodes(result.recoveryCodes);
    void queryClient.invalidateQueries({ queryKey: trpc.twoFactor.pathKey() });
  };
  const onDisable = async (code: string) => {
    const result = await answerOf(disable.mutateAsync({ code }));
    if (!result) return;
    setRecoveryCodes(null);
    setDisabledNotice(result.message);
    void queryClient.invalidateQueries({ queryKey: trpc.twoFactor.pathKey() });
  };

  const enabled = status.data?.enabled;
  return (
    <section className="card" aria-labelledby="two-factor-title" data-testid="two-factor">
      <h2 id="two-factor-title">Двухфакторный вход</h2>
      <p className="hint">
        Кроме пароля, при входе понадобится шестизначный код из приложения-аутентификатора на телефоне (Google Authenticator, Яндекс Ключ, Aegis, 1Password и другие).
        Пароль, попавший в чужие руки, один не откроет аккаунт.
      </p>
      {status.isPending ? <Loading /> : null}
      <ErrorText error={apiError(status.error)} />

      {recoveryCodes ? (
        <div className="created-key" role="region" aria-label="Коды восстановления" data-testid="recovery-codes">
          <p className="warning" role="alert">
            Двухфакторный вход включён. Сохраните коды восстановления сейчас: они показываются один раз.
          </p>
          <p className="muted">Каждый код заменяет код из приложения один раз — если телефон потерян. Храните их отдельно от пароля.</p>
          <ul className="recovery-codes">
            {recoveryCodes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
          <div className="actions">
            <CopyButton text={recoveryCodes.join('\n')} label="Скопировать все коды" />
            <Button variant="secondary" onClick={() => setRecoveryCodes(null)}>
              Коды сохранены, скрыть
            </Button>
          </div>
        </div>
      ) : null}

      {enabled === false && !setup ? (
        <>
          <p data-testid="two-factor-state">Сейчас выключен.</p>
          {disabledNotice ? (
            <p className="success" role="status">
              {disabledNotice}
            </p>
          ) : null}
          <div className="actions">
            <Button onClick={onStart} pending={start.isPending} pendingText="Готовим…">
              Включить двухфакторный вход
            </Button>
          </div>
          <ErrorText error={apiError(start.error)} />
        </>
      ) : null}

      {enabled === false && setup ? (
        <div data-testid="two-factor-setup">
          <ol className="steps">
            <li>Отсканируйте QR-код приложением-аутентификатором, на телефоне нажмите «Открыть в приложении» или введите ключ вручную.</li>
            <li>Введите шестизначный код, который покажет приложение.</li>
          </ol>
          <img
            className="qr"
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qrSvg)}`}
            alt="QR-код для приложения-аутентификатора"
            width={200}
            height={200}
            data-testid="two-factor-qr"
          />
          <SecretForPhone setup={setup} />
          <CodeForm
            label="Код из приложения"
            hint="6 цифр; код меняется каждые 30 секунд"
            submitText="Подтвердить и включить"
            pendingText="Проверяем…"
            testId="two-factor-enable"
            onCode={onEnable}
            pending={enable.isPending}
            error={fieldError(apiError(enable.error))}
          />
          <ErrorText error={formError(apiError(enable.error))} />
        </div>
      ) : null}

      {enabled === true ? (
        <>
          <p data-testid="two-factor-state">
            <span className="badge badge-ok">Включён</span> При входе нужен код из приложения.
          </p>
          <CodeForm
            label="Код для отключения"
            hint="Текущий код из приложения или один из кодов восстановления"
            submitText="Отключить двухфакторный вход"
            pendingText="Отключаем…"
            testId="two-factor-disable"
            onCode={onDisable}
            pending={disable.isPending}
            error={fieldError(apiError(disable.error))}
          />
          <ErrorText error={formError(apiError(disable.error))} />
        </>
      ) : null}
    </section>
  );
}
