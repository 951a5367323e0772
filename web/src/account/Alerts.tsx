// «Уведомления»: the low-balance threshold, the key-limit alerts switch and the webhook (its URL, and its
// signing secret shown once when made or replaced, masked after). GET|PUT /api/account/alerts.
import { useEffect, useState, type FormEvent } from 'react';
import { alertSettingsInput } from '@server/alerts/input';
import { api, type Outputs } from '../app/api';
import { Button, CopyValue, ErrorText, Field, Loading, SubmitRow } from '../shared/ui';
import { currencySymbol } from '../shared/format';
import { useAction, useQuery } from '../app/hooks';
import { check, decimalInput, decimalText, withServerErrors, type FieldErrors } from '../shared/validate';

type AlertSettings = Outputs['alerts']['get'];

const THRESHOLD_HINT =
  'Письмо придёт, когда баланс опустится ниже этой суммы, — одно на каждое снижение: следующее после того, как пополнение поднимет баланс выше порога. Пусто — не уведомлять.';
const WEBHOOK_HINT =
  'Необязательно. Те же события уйдут POST-запросом в JSON с подписью HMAC-SHA256 в заголовке X-Conduit-Signature (t=<время>,v1=<подпись строки «<время>.<тело>»>); при ошибке запрос повторяется.';

export function AlertsSection() {
  const settings = useQuery(() => api.alerts.get.query(), []);
  const [threshold, setThreshold] = useState('');
  const [keyAlerts, setKeyAlerts] = useState(true);
  const [webhookUrl, setWebhookUrl] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState<AlertSettings | null>(null);
  const save = useAction((input: Parameters<typeof api.alerts.update.mutate>[0]) => api.alerts.update.mutate(input));

  // The form starts from what the server holds.
  useEffect(() => {
    const data = settings.data;
    if (!data) return;
    setThreshold(data.lowBalanceThreshold === null ? '' : decimalText(data.lowBalanceThreshold));
    setKeyAlerts(data.keyLimitAlerts);
    setWebhookUrl(data.webhookUrl ?? '');
  }, [settings.data]);

  if (settings.loading && !settings.data) return <Loading />;
  if (!settings.data) return <ErrorText error={settings.error} />;
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
      save.fail({ message: checked.message, type: 'invalid_request_error' });
      return;
    }
    setErrors({});
    const result = await save.run(checked.data);
    if (result) setSaved(result);
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit(false);
  };
  const shown = withServerErrors(errors, save.error);

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
        <div className="field">
          <label>
            <input type="checkbox" name="keyLimitAlerts" checked={keyAlerts} onChange={(e) => setKeyAlerts(e.target.checked)} /> Сообщать, когда API-ключ израсходовал
            80 % своего лимита (одно письмо на ключ за период)
          </label>
        </div>
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
              <Button variant="secondary" onClick={() => void submit(true)} disabled={save.pending}>
                Выдать новый секрет
              </Button>
            </p>
          )
        ) : null}
        <SubmitRow label="Сохранить" pending={save.pending} done={saved !== null && !save.error} error={save.error} />
      </form>
    </section>
  );
}
