// How the shop delivers: pickup (with its address), courier and post, each switched on or off with a price
// in roubles. The client chooses among the methods switched on at check-out in the VK dialogue; with none on,
// check-out asks no delivery step. With them, the hours after which an unpaid order is reminded of. Saved
// with the shop's settings (the payment template as stored).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { deliverySettingsInput, type DeliverySettings } from '@server/commerce/delivery';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { Field, Loading, SubmitRow } from '../shared/ui';
import { minorToInput, parsePrice } from './price';

type Method = 'pickup' | 'courier' | 'post';
const METHODS: { key: Method; title: string }[] = [
  { key: 'pickup', title: 'Самовывоз' },
  { key: 'courier', title: 'Курьер' },
  { key: 'post', title: 'Почта' },
];
type Form = Record<Method, { enabled: boolean; price: string }> & { address: string };

const EMPTY: DeliverySettings = {
  pickup: { enabled: false, priceMinor: 0, address: '' },
  courier: { enabled: false, priceMinor: 0 },
  post: { enabled: false, priceMinor: 0 },
};

function formOf(d: DeliverySettings | null): Form {
  const v = d ?? EMPTY;
  return {
    pickup: { enabled: v.pickup.enabled, price: minorToInput(v.pickup.priceMinor) },
    courier: { enabled: v.courier.enabled, price: minorToInput(v.courier.priceMinor) },
    post: { enabled: v.post.enabled, price: minorToInput(v.post.priceMinor) },
    address: v.pickup.address,
  };
}

export function ShopDelivery({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.commerce.getSettings.queryOptions({ agentId }));
  const save = useMutation(trpc.commerce.putSettings.mutationOptions());
  const [form, setForm] = useState<Form>(formOf(null));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const [hours, setHours] = useState('2');

  useEffect(() => {
    if (!settings.data) return;
    setForm(formOf(settings.data.delivery));
    setHours(String(settings.data.unpaidReminderHours));
  }, [settings.data]);

  const set = (method: Method, patch: Partial<Form[Method]>) => setForm((f) => ({ ...f, [method]: { ...f[method], ...patch } }));

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const template = settings.data?.paymentLinkTemplate;
    if (!template) return;
    const found: Record<string, string> = {};
    const prices = {} as Record<Method, number>;
    for (const { key, title } of METHODS) {
      const parsed = parsePrice(form[key].price);
      if (parsed.ok) prices[key] = parsed.minor;
      else
        found[`${key}.priceMinor`] =
          `${title}: ${parsed.message.replace(/^Цена: /, 'цена доставки: ').replace('укажите цену товара', 'укажите цену, 0 — бесплатно')}`;
    }
    const reminderHours = /^\d{1,3}$/.test(hours.trim()) ? Number(hours.trim()) : Number.NaN;
    if (!(reminderHours >= 0 && reminderHours <= 168)) found.unpaidReminderHours = 'Напоминание: целое число часов от 0 (не напоминать) до 168';
    if (Object.keys(found).length > 0) {
      setErrors(found);
      return;
    }
    const checked = deliverySettingsInput.safeParse({
      pickup: { enabled: form.pickup.enabled, priceMinor: prices.pickup, address: form.address },
      courier: { enabled: form.courier.enabled, priceMinor: prices.courier },
      post: { enabled: form.post.enabled, priceMinor: prices.post },
    });
    if (!checked.success) {
      for (const issue of checked.error.issues) found[issue.path.join('.')] ??= issue.message;
      setErrors(found);
      return;
    }
    setErrors({});
    const result = await answerOf(save.mutateAsync({ agentId, paymentLinkTemplate: template, delivery: checked.data, unpaidReminderHours: reminderHours }));
    if (!result) return;
    queryClient.setQueryData(trpc.commerce.getSettings.queryKey({ agentId }), result);
    setSaved(true);
  };

  return (
    <section className="shop-part" aria-labelledby="shop-delivery-title" data-testid="shop-delivery">
      <h3 id="shop-delivery-title">Доставка</h3>
      {settings.isPending ? <Loading /> : null}
      {settings.data && !settings.data.configured ? (
        <p className="muted">Способы доставки можно задать после сохранения настроек оплаты.</p>
      ) : settings.data ? (
        <form onSubmit={onSubmit} noValidate>
          <p className="hint">
            Клиент выбирает способ кнопкой при оформлении заказа; цена доставки входит в сумму к оплате. Если ни один способ не включён, доставку не спрашивают.
          </p>
          {METHODS.map(({ key, title }) => (
            <fieldset className="mapping" key={key} data-testid={`delivery-${key}`}>
              <legend>{title}</legend>
              <label className="checkbox">
                <input type="checkbox" name={`${key}Enabled`} checked={form[key].enabled} onChange={(e) => set(key, { enabled: e.target.checked })} />
                Предлагать клиентам
              </label>
              <Field label={`${title}: цена, ₽`} hint="0 — бесплатно" error={errors[`${key}.priceMinor`]}>
                {(props) => (
                  <input {...props} name={`${key}Price`} inputMode="decimal" value={form[key].price} onChange={(e) => set(key, { price: e.target.value })} />
                )}
              </Field>
              {key === 'pickup' ? (
                <Field label="Адрес самовывоза" hint="Клиент увидит его в заказе" error={errors['pickup.address']}>
                  {(props) => <input {...props} name="pickupAddress" value={form.address} onChange={(e) => setForm((f) => ({ ...f, address: e.target.value }))} />}
                </Field>
              ) : null}
            </fieldset>
          ))}
          <Field
            label="Напомнить о неоплаченном заказе через, ч"
            hint="Один раз, со ссылкой на оплату, если заказ ещё не оплачен и не отменён; 0 — не напоминать"
            error={errors.unpaidReminderHours}
          >
            {(props) => <input {...props} name="unpaidReminderHours" inputMode="numeric" value={hours} onChange={(e) => setHours(e.target.value)} />}
          </Field>
          <SubmitRow label="Сохранить доставку" pending={save.isPending} done={saved} doneText="Доставка сохранена" error={apiError(save.error)} />
        </form>
      ) : null}
    </section>
  );
}
