// Payment settings of an E-commerce agent's shop: the payment page template, and the notification URL
// for the payment provider. Its secret is in the full URL only in the answer that created it: shown
// once here, masked on every later read.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { commerceSettingsInput } from '@server/commerce/settings-input';
import type { Outputs } from '../app/api';
import { Button, CopyValue, ErrorText, Field, Loading, SubmitRow } from '../shared/ui';
import { formatDateTime } from '../shared/format';
import { check, type FieldErrors, withServerErrors } from '../shared/validate';

type View = Outputs['commerce']['getSettings'];

export function ShopSettings({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.commerce.getSettings.queryOptions({ agentId }));
  const [view, setView] = useState<View | undefined>();
  const [template, setTemplate] = useState('');
  const [rotate, setRotate] = useState(false);
  const [fullUrl, setFullUrl] = useState<string | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  const save = useMutation(trpc.commerce.putSettings.mutationOptions());
  const shown = withServerErrors(errors, apiError(save.error));
  const templateInput = useRef<HTMLInputElement>(null);

  // Sets state only, so made once: a new answer from the server, not a render, fills the form again.
  const show = useCallback((v: View) => {
    setView(v);
    setTemplate(v.paymentLinkTemplate ?? '');
  }, []);
  useEffect(() => {
    if (settings.data) show(settings.data);
  }, [settings.data, show]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const checked = check(commerceSettingsInput, { paymentLinkTemplate: template, rotateWebhookSecret: rotate });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const result = await answerOf(save.mutateAsync({ agentId, ...checked.data }));
    if (!result) return;
    const { webhookUrlWithSecret, ...rest } = result;
    // Kept in this component's state only: it is gone after a reload, as the API promises.
    if (webhookUrlWithSecret) setFullUrl(webhookUrlWithSecret);
    setRotate(false);
    show(rest);
    // The delivery form beside this one reads the same settings (it needs the shop configured).
    queryClient.setQueryData(trpc.commerce.getSettings.queryKey({ agentId }), rest);
    setSaved(true);
  };

  return (
    <section className="shop-part" aria-labelledby="shop-settings-title" data-testid="shop-settings">
      <h3 id="shop-settings-title">Оплата заказов</h3>
      {settings.isPending ? <Loading /> : null}
      <ErrorText error={apiError(settings.error)} />
      {view ? (
        <>
          <p className="status-line" data-testid="shop-status">
            {view.configured ? <span className="badge badge-ok">Настроено</span> : <span className="badge badge-off">Не настроено</span>}
            {view.updatedAt ? <span className="muted">Сохранено {formatDateTime(view.updatedAt)}</span> : null}
          </p>

          {fullUrl ? (
            <div className="created-key" role="region" aria-label="Адрес уведомлений об оплате с секретом" data-testid="shop-webhook-secret">
              <p className="warning" role="alert">
                Адрес уведомлений показан полностью только сейчас: скопируйте его в настройки платёжной системы. Позже будет виден только замаскированный адрес, а
                чтобы получить новый, придётся сменить секрет.
              </p>
              <CopyValue value={fullUrl} label="Адрес уведомлений об оплате с секретом" testId="shop-webhook-full-url" />
              <Button
                variant="secondary"
                onClick={() => {
                  setFullUrl(null);
                  templateInput.current?.focus();
                }}
              >
                Адрес сохранён, скрыть
              </Button>
            </div>
          ) : view.webhookUrl ? (
            <div className="field">
              <span className="label">Адрес уведомлений об оплате</span>
              <code className="masked-value" aria-label="Адрес уведомлений об оплате (секрет скрыт)" data-testid="shop-webhook-url">
                {view.webhookUrl}
              </code>
              <p className="hint">Секрет скрыт. Полный адрес показывается один раз — при первом сохранении или смене секрета.</p>
            </div>
          ) : (
            <p className="muted">Адрес уведомлений для платёжной системы появится после сохранения настроек.</p>
          )}

          <form onSubmit={onSubmit} noValidate>
            <Field
              label="Шаблон ссылки на оплату"
              hint={
                <>
                  Ссылка https:// на страницу оплаты с <code>{'{orderNumber}'}</code> или <code>{'{orderId}'}</code>; можно также <code>{'{amount}'}</code> и{' '}
                  <code>{'{currency}'}</code>
                </>
              }
              error={shown.paymentLinkTemplate}
            >
              {(props) => (
                <input
                  {...props}
                  ref={templateInput}
                  name="paymentLinkTemplate"
                  type="url"
                  inputMode="url"
                  autoComplete="off"
                  placeholder="https://pay.example.ru/pay?order={orderNumber}&sum={amount}"
                  value={template}
                  onChange={(e) => setTemplate(e.target.value)}
                />
              )}
            </Field>
            {view.configured ? (
              <label className="checkbox">
                <input type="checkbox" name="rotateWebhookSecret" checked={rotate} onChange={(e) => setRotate(e.target.checked)} />
                Сменить секрет уведомлений (старый адрес перестанет работать)
              </label>
            ) : null}
            <SubmitRow label="Сохранить настройки оплаты" pending={save.isPending} done={saved} doneText="Настройки оплаты сохранены" error={apiError(save.error)} />
          </form>
        </>
      ) : null}
    </section>
  );
}
