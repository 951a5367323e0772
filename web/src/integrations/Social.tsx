// VK community settings of an agent: group id, access token (shown masked), callback secret and the
// confirmation code; the webhook URL to paste into VK; the connection check, the confirmation code
// request and the callback server registration.
import { useEffect, useState, type FormEvent } from 'react';
import { checkConnectionInput, SECRET_KEY_MIN, socialSettingsInput } from '../../../src/integrations/social/settings-input';
import { api, type Outputs } from '../api';
import { Button, CopyValue, ErrorText, Field, Loading, SubmitRow } from '../components/ui';
import { formatDateTime } from '../format';
import { useAction, useQuery } from '../hooks';
import { check, type FieldErrors } from '../validate';

type View = Outputs['social']['getSettings'];

/** VK's callback server statuses (groups.getCallbackServers), in the owner's words. */
const SERVER_STATUS: Record<string, string> = {
  ok: 'адрес подтверждён ВКонтакте',
  wait: 'ВКонтакте проверяет адрес',
  failed: 'ВКонтакте не смог подтвердить адрес',
  unconfigured: 'адрес ещё не подтверждён',
};
const serverStatus = (status: string) => SERVER_STATUS[status] ?? `статус ВКонтакте: ${status}`;

export function SocialSettings({ agentId }: { agentId: string }) {
  const settings = useQuery(() => api.social.getSettings.query({ agentId }), [agentId]);
  const [view, setView] = useState<View | undefined>();
  const [groupId, setGroupId] = useState('');
  const [accessToken, setAccessToken] = useState('');
  const [secretKey, setSecretKey] = useState('');
  const [confirmationCode, setConfirmationCode] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  const save = useAction((input: Parameters<typeof api.social.putSettings.mutate>[0]) => api.social.putSettings.mutate(input));
  const checkConnection = useAction((input: Parameters<typeof api.social.checkConnection.mutate>[0]) => api.social.checkConnection.mutate(input));
  const code = useAction(() => api.social.confirmationCode.query({ agentId }));
  const webhook = useAction(() => api.social.registerWebhook.mutate({ agentId }));
  const [checkResult, setCheckResult] = useState<Outputs['social']['checkConnection'] | null>(null);
  const [webhookResult, setWebhookResult] = useState<Outputs['social']['registerWebhook'] | null>(null);

  const show = (v: View) => {
    setView(v);
    setGroupId(v.groupId === null ? '' : String(v.groupId));
    setConfirmationCode(v.confirmationCode ?? '');
  };
  useEffect(() => {
    if (settings.data) show(settings.data);
  }, [settings.data]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const checked = check(socialSettingsInput, {
      groupId,
      accessToken: accessToken.trim() || undefined,
      secretKey: secretKey || undefined,
      confirmationCode: confirmationCode.trim() || undefined,
    });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const result = await save.run({ agentId, ...checked.data });
    if (!result) return;
    setAccessToken('');
    setSecretKey('');
    show(result);
    setSaved(true);
  };

  const onCheck = async () => {
    setCheckResult(null);
    const checked = check(checkConnectionInput, { groupId, accessToken });
    if (!checked.ok) {
      checkConnection.fail({
        message: view?.configured && !accessToken ? 'Для проверки введите ключ доступа: сохранённый ключ не показывается' : checked.message,
        type: 'invalid_request_error',
      });
      return;
    }
    const result = await checkConnection.run(checked.data);
    if (result) setCheckResult(result);
  };

  const onCode = async () => {
    const result = await code.run();
    if (!result) return;
    setConfirmationCode(result.confirmationCode);
    setView((v) => (v ? { ...v, confirmationCode: result.confirmationCode } : v));
  };

  const onWebhook = async () => {
    setWebhookResult(null);
    const result = await webhook.run();
    if (result) {
      setWebhookResult(result);
      settings.reload();
    }
  };

  return (
    <section className="card" aria-labelledby="social-title" data-testid="social-settings">
      <h2 id="social-title">ВКонтакте — сообщество</h2>
      {settings.loading && !view ? <Loading /> : null}
      <ErrorText error={settings.error} />
      {view ? (
        <>
          <p className="status-line">
            {view.configured ? <span className="badge badge-ok">Подключено</span> : <span className="badge badge-off">Не подключено</span>}
            {view.callbackServerId !== null ? <span className="muted">Сервер Callback API №{view.callbackServerId}</span> : null}
            {view.updatedAt ? <span className="muted">Сохранено {formatDateTime(view.updatedAt)}</span> : null}
          </p>
          <div className="field">
            <span className="label">Адрес webhook для Callback API</span>
            <CopyValue value={view.webhookUrl} label="Адрес webhook ВКонтакте" testId="social-webhook-url" />
          </div>
          <form onSubmit={onSubmit} noValidate>
            <div className="grid">
              <Field label="ID сообщества" hint="Только цифры" error={errors.groupId}>
                {(props) => <input {...props} name="groupId" inputMode="numeric" value={groupId} onChange={(e) => setGroupId(e.target.value)} />}
              </Field>
              <Field
                label="Ключ доступа сообщества"
                hint={view.accessToken ? `Сохранён: ${view.accessToken}. Оставьте пустым, чтобы не менять` : 'Начинается с vk1.a.'}
                error={errors.accessToken}
              >
                {(props) => (
                  <input {...props} name="accessToken" type="password" autoComplete="off" value={accessToken} onChange={(e) => setAccessToken(e.target.value)} />
                )}
              </Field>
              <Field
                label="Секретный ключ"
                hint={view.secretKeySet ? 'Сохранён. Оставьте пустым, чтобы не менять' : `Не короче ${SECRET_KEY_MIN} символов, латинские буквы и цифры`}
                error={errors.secretKey}
              >
                {(props) => (
                  <input {...props} name="secretKey" type="password" autoComplete="off" value={secretKey} onChange={(e) => setSecretKey(e.target.value)} />
                )}
              </Field>
              <Field label="Код подтверждения" hint="Из настроек Callback API сообщества" error={errors.confirmationCode}>
                {(props) => <input {...props} name="confirmationCode" value={confirmationCode} onChange={(e) => setConfirmationCode(e.target.value)} />}
              </Field>
            </div>
            <SubmitRow label="Сохранить настройки ВКонтакте" pending={save.pending} done={saved} error={save.error} />
          </form>

          <div className="tool">
            <div className="actions">
              <Button variant="secondary" onClick={onCheck} pending={checkConnection.pending} pendingText="Проверяем…">
                Проверить подключение
              </Button>
              {checkResult ? (
                <span className={checkResult.ok ? 'success' : 'error'} role="status">
                  {checkResult.ok ? `Подключение работает${checkResult.groupName ? `: «${checkResult.groupName}»` : ''}` : checkResult.reason}
                </span>
              ) : null}
            </div>
            <ErrorText error={checkConnection.error} />
          </div>
          <div className="tool">
            <div className="actions">
              <Button variant="secondary" onClick={onCode} pending={code.pending} pendingText="Запрашиваем…" disabled={!view.configured}>
                Получить код подтверждения
              </Button>
              {view.confirmationCode ? (
                <span role="status">
                  Код: <code>{view.confirmationCode}</code>
                </span>
              ) : null}
            </div>
            <ErrorText error={code.error} />
          </div>
          <div className="tool">
            <div className="actions">
              <Button variant="secondary" onClick={onWebhook} pending={webhook.pending} pendingText="Подключаем…" disabled={!view.configured}>
                Подключить webhook в сообществе
              </Button>
              {webhookResult ? (
                <span className={webhookResult.status === 'failed' ? 'error' : 'success'} role="status">
                  Сервер №{webhookResult.serverId} подключён: {serverStatus(webhookResult.status)}
                </span>
              ) : null}
            </div>
            <ErrorText error={webhook.error} />
          </div>
        </>
      ) : null}
    </section>
  );
}
