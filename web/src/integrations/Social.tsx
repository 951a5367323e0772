// VK community settings of an agent: group id, access token (shown masked), callback secret and the
// confirmation code; the webhook URL to paste into VK; the connection check, the confirmation code
// request and the callback server registration.
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC, useTRPCClient, useRefusal } from '../app/trpc';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { checkConnectionInput, SECRET_KEY_MIN, socialSettingsInput } from '@server/integrations/social/settings-input';
import type { Outputs } from '../app/api';
import { Button, CopyValue, ErrorText, Field, Loading, SubmitRow } from '../shared/ui';
import { formatDateTime } from '../shared/format';
import { setupHints } from '../agents/setup-hints';
import { check, type FieldErrors, withServerErrors } from '../shared/validate';

type View = Outputs['social']['getSettings'];

/** VK's callback server statuses (groups.getCallbackServers), in the owner's words. */
const SERVER_STATUS: Record<string, string> = {
  ok: 'адрес подтверждён ВКонтакте',
  wait: 'ВКонтакте проверяет адрес',
  failed: 'ВКонтакте не смог подтвердить адрес',
  unconfigured: 'адрес ещё не подтверждён',
};
const serverStatus = (status: string) => SERVER_STATUS[status] ?? `статус ВКонтакте: ${status}`;

/** «Подключено» only once VK answered a check with the saved token; otherwise what is known. */
function ConnectionBadge({ view }: { view: View }) {
  const { status, groupName, reason } = view.connection;
  if (!view.configured)
    return (
      <span className="badge badge-off" data-testid="social-status">
        Не подключено
      </span>
    );
  if (status === 'connected') {
    return (
      <>
        <span className="badge badge-ok" data-testid="social-status">
          Подключено
        </span>
        {groupName ? <span className="muted">«{groupName}»</span> : null}
      </>
    );
  }
  if (status === 'failed') {
    return (
      <>
        <span className="badge badge-off" data-testid="social-status">
          Нет связи с ВКонтакте
        </span>
        {reason ? <span className="error">{reason}</span> : null}
      </>
    );
  }
  return (
    <span className="badge" data-testid="social-status">
      Не проверено
    </span>
  );
}

export function SocialSettings({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const settings = useQuery(trpc.social.getSettings.queryOptions({ agentId }));
  const [view, setView] = useState<View | undefined>();
  const [groupId, setGroupId] = useState('');
  const [accessToken, setAccessToken] = useState('');
  const [secretKey, setSecretKey] = useState('');
  const [confirmationCode, setConfirmationCode] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  const save = useMutation(trpc.social.putSettings.mutationOptions());
  const shown = withServerErrors(errors, apiError(save.error));
  const checkConnection = useMutation(trpc.social.checkConnection.mutationOptions());
  const client = useTRPCClient();
  // Asked on request, not a read kept on screen: run like an action.
  const code = useMutation({ mutationFn: () => client.social.confirmationCode.query({ agentId }) });
  const [checkError, refuseCheck] = useRefusal(checkConnection);
  const webhook = useMutation(trpc.social.registerWebhook.mutationOptions());
  const [checkResult, setCheckResult] = useState<Outputs['social']['checkConnection'] | null>(null);
  const [webhookResult, setWebhookResult] = useState<Outputs['social']['registerWebhook'] | null>(null);

  // Sets state only, so made once: a new answer from the server, not a render, fills the form again.
  const show = useCallback((v: View) => {
    setView(v);
    setGroupId(v.groupId === null ? '' : String(v.groupId));
    setConfirmationCode(v.confirmationCode ?? '');
  }, []);
  useEffect(() => {
    if (settings.data) show(settings.data);
  }, [settings.data, show]);

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
    const result = await answerOf(save.mutateAsync({ agentId, ...checked.data }));
    if (!result) return;
    setAccessToken('');
    setSecretKey('');
    show(result);
    setSaved(true);
  };

  /** A typed token is tried as typed; without one, the server tries the saved (sealed) token of this agent. */
  const onCheck = async () => {
    setCheckResult(null);
    const typed = accessToken.trim() !== '';
    const checked = check(checkConnectionInput, typed ? { groupId, accessToken } : { agentId, groupId: groupId.trim() || undefined });
    if (!checked.ok) {
      refuseCheck({ message: checked.message, type: 'invalid_request_error' });
      return;
    }
    const result = await answerOf(checkConnection.mutateAsync(checked.data));
    if (!result) return;
    setCheckResult(result);
    // The saved token's outcome is the status the settings show.
    if (!typed) void settings.refetch();
  };
  const canCheck = Boolean(view?.configured) || accessToken.trim() !== '';

  const onCode = async () => {
    const result = await answerOf(code.mutateAsync());
    if (!result) return;
    setConfirmationCode(result.confirmationCode);
    setView((v) => (v ? { ...v, confirmationCode: result.confirmationCode } : v));
  };

  const onWebhook = async () => {
    setWebhookResult(null);
    const result = await answerOf(webhook.mutateAsync({ agentId }));
    if (result) {
      setWebhookResult(result);
      void settings.refetch();
    }
  };

  return (
    <section className="card" aria-labelledby="social-title" data-testid="social-settings">
      <h2 id="social-title">ВКонтакте — сообщество</h2>
      {settings.isPending ? <Loading /> : null}
      <ErrorText error={apiError(settings.error)} />
      {view ? (
        <>
          <p className="status-line">
            <ConnectionBadge view={view} />
            {view.callbackServerId !== null ? <span className="muted">Сервер Callback API №{view.callbackServerId}</span> : null}
            {view.updatedAt ? <span className="muted">Сохранено {formatDateTime(view.updatedAt)}</span> : null}
          </p>
          <div className="field">
            <span className="label">Адрес webhook для Callback API</span>
            <CopyValue value={view.webhookUrl} label="Адрес webhook ВКонтакте" testId="social-webhook-url" />
            <p className="hint">{setupHints.vkWebhook}</p>
          </div>
          <form onSubmit={onSubmit} noValidate>
            <div className="grid">
              <Field label="ID сообщества" hint="Только цифры" error={shown.groupId}>
                {(props) => <input {...props} name="groupId" inputMode="numeric" value={groupId} onChange={(e) => setGroupId(e.target.value)} />}
              </Field>
              <Field
                label="Ключ доступа сообщества"
                hint={view.accessToken ? `Сохранён: ${view.accessToken}. Оставьте пустым, чтобы не менять. ${setupHints.vkAccessKey}` : setupHints.vkAccessKey}
                error={shown.accessToken}
              >
                {(props) => (
                  <input {...props} name="accessToken" type="password" autoComplete="off" value={accessToken} onChange={(e) => setAccessToken(e.target.value)} />
                )}
              </Field>
              <Field
                label="Секретный ключ"
                hint={view.secretKeySet ? 'Сохранён. Оставьте пустым, чтобы не менять' : `Не короче ${SECRET_KEY_MIN} символов, латинские буквы и цифры`}
                error={shown.secretKey}
              >
                {(props) => <input {...props} name="secretKey" type="password" autoComplete="off" value={secretKey} onChange={(e) => setSecretKey(e.target.value)} />}
              </Field>
              <Field label="Код подтверждения" hint="Из настроек Callback API сообщества" error={shown.confirmationCode}>
                {(props) => <input {...props} name="confirmationCode" value={confirmationCode} onChange={(e) => setConfirmationCode(e.target.value)} />}
              </Field>
            </div>
            <SubmitRow label="Сохранить настройки ВКонтакте" pending={save.isPending} done={saved} error={apiError(save.error)} />
          </form>

          <div className="tool">
            <div className="actions">
              <Button variant="secondary" onClick={onCheck} pending={checkConnection.isPending} pendingText="Проверяем…" disabled={!canCheck}>
                Проверить подключение
              </Button>
              {!canCheck ? <span className="hint">Введите ID сообщества и ключ доступа или сохраните настройки</span> : null}
              {checkResult ? (
                <span className={checkResult.ok ? 'success' : 'error'} role="status">
                  {checkResult.ok ? `Подключение работает${checkResult.groupName ? `: «${checkResult.groupName}»` : ''}` : checkResult.reason}
                </span>
              ) : null}
            </div>
            <ErrorText error={checkError} />
          </div>
          <div className="tool">
            <div className="actions">
              <Button variant="secondary" onClick={onCode} pending={code.isPending} pendingText="Запрашиваем…" disabled={!view.configured}>
                Получить код подтверждения
              </Button>
              {!view.configured ? <span className="hint">Доступно после сохранения настроек</span> : null}
              {view.confirmationCode ? (
                <span role="status">
                  Код: <code>{view.confirmationCode}</code>
                </span>
              ) : null}
            </div>
            <ErrorText error={apiError(code.error)} />
          </div>
          <div className="tool">
            <div className="actions">
              <Button variant="secondary" onClick={onWebhook} pending={webhook.isPending} pendingText="Подключаем…" disabled={!view.configured}>
                Подключить webhook в сообществе
              </Button>
              {!view.configured ? <span className="hint">Доступно после сохранения настроек</span> : null}
              {webhookResult ? (
                <span className={webhookResult.status === 'failed' ? 'error' : 'success'} role="status">
                  Сервер №{webhookResult.serverId} подключён: {serverStatus(webhookResult.status)}
                </span>
              ) : null}
            </div>
            {webhookResult && webhookResult.status !== 'ok' ? (
              <p className="hint" data-testid="social-next-step">
                {setupHints.vkUnconfirmedNextStep(webhookResult.serverId)}
              </p>
            ) : null}
            <ErrorText error={apiError(webhook.error)} />
          </div>
        </>
      ) : null}
    </section>
  );
}
