// «Уведомления»: the low-balance threshold, the key-limit alerts switch and the webhook (its URL, and its
// signing secret shown once when made or replaced, masked after). GET|PUT /api/account/alerts.
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useEffect, useState, type FormEvent } from 'react';
import { alertSettingsInput } from '@server/alerts/input';
import type { ApiError, Outputs } from '../app/api';
import { Button, CopyValue, ErrorText, Field, Loading, SubmitRow } from '../shared/ui';
import { currencySymbol } from '../shared/format';
import { check, decimalInput, decimalText, withServerErrors, type FieldErrors } from '../shared/validate';

type AlertSettings = Outputs['alerts']['get'];

const THRESHOLD_HINT =
  'Письмо придёт, когда баланс опустится ниже этой суммы, — одно на каждое снижение: следующее после того, как пополнение поднимет баланс выше порога. Пусто — не уведомлять.';
const WEBHOOK_HINT =
  'Необязательно. Те же события уйдут POST-запросом в JSON с подписью HMAC-SHA256 в заголовке X-Conduit-Signature (t=<время>,v1=<подпись строки «<время>.<тело>»>); при ошибке запрос повторяется.';

export function AlertsSection() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.alerts.get.queryOptions());
  const [threshold, setThreshold] = useState('');
  const [keyAlerts, setKeyAlerts] = useState(true);
  const [webhookUrl, setWebhookUrl] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState<AlertSettings | null>(null);
  // What the form refused before any request, shown where the API's refusal would be.
  const [refused, setRefused] = useState<ApiError | undefined>();
  const save = useMutation(trpc.alerts.update.mutationOptions());

  // The form starts from what the server holds.
  useEffect(() => {
    const data = settings.data;
    if (!data) return;
    setThreshold(data.lowBalanceThreshold === null ? '' : decimalText(data.lowBalanceThreshold));
    setKeyAlerts(data.keyLimitAlerts);
    setWebhookUrl(data.webhookUrl ?? '');
  }, [settings.data]);

  if (settings.isPending) return <Loading />;
  if (!settings.data) return <ErrorText error={apiError(settings.error)} />;
  const current = saved ?? settings.data;
  const symbol = currencySymbol(current.currency);

  const submit = async (rotate: boolean) => {
    const values = {
      lowBalanceThreshold: threshold.trim() === '' ? null : decimalInput(threshold),
      keyLimitAlerts: keyAlerts,
      webhookUrl: webhookUrl.trim() === '' ? null : webhookUrl.trim(),
      ...(rotate ? { rotateWebhookSecret: true } : {}),
    };
    const checked = check(alertSettingsInput, values);
    if (!checked.ok) {
      setErrors(checked.errors);
      save.reset();
      setRefused({ message: checked.message, type: 'invalid_request_error' });
      return;
    }
    setErrors({});
    setRefused(undefined);
    const result = await answerOf(save.mutateAsync(checked.data));
    if (result) setSaved(result);
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit(false);
  };
  const saveError = refused ?? apiError(save.error);
  const shown = withServerErrors(errors, saveError);

  return (
    <section className="card" aria-labelledby="alerts-title" data-testid="alerts-section">
      <h2 id="alerts-title">Уведомления</h2>
      {current.emailEnabled ? null : <p className="hint">Сервер не отправляет письма (не настроен SMTP): уведомления придут только на вебхук.</p>}
      <form onSubmit={onSubmit} noValidate aria-label="Уведомления о балансе и лимитах">
        <Field label={`Порог баланса, ${symbol}`} hint={THRESHOLD_HINT} error={shown.lowBalanceThreshold}>
          {(props) => (
            <input {...props} name="lowBalanceThreshold" inputMode="decimal" autoComplete="off" value={threshold} onChange={(e) => setThreshold(e.target.value)} />
          )}
        </Field>
        {/* .checkbox: the box beside its words (a .field label would stretch the box to the full width above them). */}
        <label className="checkbox" data-testid="key-limit-alerts">
          <input type="checkbox" name="keyLimitAlerts" checked={keyAlerts} onChange={(e) => setKeyAlerts(e.target.checked)} />
          <span>Сообщать, когда API-ключ израсходовал 80 % своего лимита (одно письмо на ключ за период)</span>
        </label>
        <Field label="Адрес вебхука" hint={WEBHOOK_HINT} error={shown.webhookUrl}>
          {(props) => (
            <input
              {...props}
              name="webhookUrl"
              type="url"
              autoComplete="off"
              placeholder="https://example.com/conduit-events"
              value={webhookUrl}
              onChange={(e) => setWebhookUrl(e.target.value)}
            />
          )}
        </Field>
        {current.webhookSecret ? (
          current.webhookSecretShown ? (
            <div className="notice" role="status">
              <p>Секрет подписи вебхука — сохраните его сейчас, больше он показан не будет:</p>
              <CopyValue value={current.webhookSecret} label="Секрет подписи вебхука" testId="webhook-secret" />
            </div>
          ) : (
            <p className="hint">
              Секрет подписи: <code data-testid="webhook-secret-masked">{current.webhookSecret}</code>{' '}
              <Button variant="secondary" onClick={() => void submit(true)} disabled={save.isPending}>
                Выдать новый секрет
              </Button>
            </p>
          )
        ) : null}
        <SubmitRow label="Сохранить" pending={save.isPending} done={saved !== null && !saveError} error={saveError} />
      </form>
    </section>
  );
}
