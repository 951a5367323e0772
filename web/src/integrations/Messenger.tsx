// Telegram bot of an agent: the token (checked by Telegram on save, shown masked), who gets the
// notifications, the optional channel, the webhook status, and the channel-admin check.
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC, useTRPCClient } from '../app/trpc';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { messengerSettingsInput } from '@server/integrations/messenger/settings-input';
import type { Outputs } from '../app/api';
import { Button, CopyValue, ErrorText, Field, Loading, SubmitRow } from '../shared/ui';
import { formatDateTime } from '../shared/format';
import { check, type FieldErrors, withServerErrors } from '../shared/validate';
import { setupHints } from '../agents/setup-hints';

type View = Outputs['messenger']['getSettings'];

export function MessengerSettings({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const settings = useQuery(trpc.messenger.getSettings.queryOptions({ agentId }));
  const [view, setView] = useState<View | undefined>();
  const [botToken, setBotToken] = useState('');
  const [userId, setUserId] = useState('');
  const [channelId, setChannelId] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  const save = useMutation(trpc.messenger.saveSettings.mutationOptions());
  const shown = withServerErrors(errors, apiError(save.error));
  const client = useTRPCClient();
  // A check asked on request, not a read kept on screen: run like an action.
  const channel = useMutation({ mutationFn: () => client.messenger.checkChannelAdmin.query({ agentId }) });
  const [channelResult, setChannelResult] = useState<Outputs['messenger']['checkChannelAdmin'] | null>(null);

  // Sets state only, so made once: a new answer from the server, not a render, fills the form again.
  const show = useCallback((v: View) => {
    setView(v);
    setUserId(v.userId ?? '');
    setChannelId(v.channelId ?? '');
  }, []);
  useEffect(() => {
    if (settings.data) show(settings.data);
  }, [settings.data, show]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const checked = check(messengerSettingsInput, { botToken: botToken.trim() || undefined, userId, channelId: channelId.trim() || null });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const result = await answerOf(save.mutateAsync({ agentId, ...checked.data }));
    if (!result) return;
    setBotToken('');
    show(result);
    setSaved(true);
  };

  const onCheckChannel = async () => {
    setChannelResult(null);
    const result = await answerOf(channel.mutateAsync());
    if (result) setChannelResult(result);
  };

  return (
    <section className="card" aria-labelledby="messenger-title" data-testid="messenger-settings">
      <h2 id="messenger-title">Telegram — уведомления и эскалация</h2>
      {settings.isPending ? <Loading /> : null}
      <ErrorText error={apiError(settings.error)} />
      {view ? (
        <>
          <p className="status-line">
            {view.configured ? <span className="badge badge-ok">Подключено</span> : <span className="badge badge-off">Не подключено</span>}
            {view.bot?.username ? <span className="muted">Бот @{view.bot.username}</span> : null}
            {view.configured ? (
              view.webhook.registered ? (
                <span className="muted">Webhook зарегистрирован{view.webhook.registeredAt ? ` ${formatDateTime(view.webhook.registeredAt)}` : ''}</span>
              ) : (
                <span className="error-inline">Webhook не зарегистрирован{view.webhook.error ? `: ${view.webhook.error}` : ''}</span>
              )
            ) : null}
          </p>
          {view.problem ? (
            <p className="error" role="alert">
              {view.problem}
            </p>
          ) : null}
          <div className="field">
            <span className="label">Адрес webhook бота</span>
            <CopyValue value={view.webhookUrl} label="Адрес webhook Telegram" testId="messenger-webhook-url" />
            <p className="hint">Регистрируется в Telegram автоматически при сохранении.</p>
          </div>
          <form onSubmit={onSubmit} noValidate>
            <div className="grid">
              <Field
                label="Токен бота"
                hint={view.botToken ? `Сохранён: ${view.botToken}. Оставьте пустым, чтобы не менять` : 'Выдаёт @BotFather, вида 123456:ABC…'}
                error={shown.botToken}
              >
                {(props) => <input {...props} name="botToken" type="password" autoComplete="off" value={botToken} onChange={(e) => setBotToken(e.target.value)} />}
              </Field>
              <Field label="ID пользователя для уведомлений" hint={setupHints.telegramUserId} error={shown.userId}>
                {(props) => <input {...props} name="userId" inputMode="numeric" value={userId} onChange={(e) => setUserId(e.target.value)} />}
              </Field>
              <Field label="Канал" hint="Необязательно: @имя_канала или числовой id" error={shown.channelId}>
                {(props) => <input {...props} name="channelId" value={channelId} onChange={(e) => setChannelId(e.target.value)} />}
              </Field>
            </div>
            <SubmitRow label="Сохранить настройки Telegram" pending={save.isPending} pendingText="Проверяем бота…" done={saved} error={apiError(save.error)} />
          </form>
          <div className="tool">
            <div className="actions">
              <Button variant="secondary" onClick={onCheckChannel} pending={channel.isPending} pendingText="Проверяем…" disabled={!view.configured}>
                Проверить права бота в канале
              </Button>
              {!view.configured ? <span className="hint">Доступно после сохранения настроек</span> : null}
              {channelResult ? (
                <span className={channelResult.ok ? 'success' : 'error'} role="status">
                  {channelResult.ok ? 'Бот — администратор канала и может публиковать сообщения' : channelResult.reason}
                </span>
              ) : null}
            </div>
            <ErrorText error={apiError(channel.error)} />
          </div>
        </>
      ) : null}
    </section>
  );
}
