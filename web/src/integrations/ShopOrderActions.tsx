// What the owner does with an order once it is paid: «Отправлен» with the tracking number, «Доставлен»,
// «Отменён» with a reason. Each change is messaged to the client in VK once (the server's outbox); the
// buttons shown are the ones the order's status allows. Beside them, how the order is delivered.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Outputs } from '../app/api';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { Button, ErrorText, Field } from '../shared/ui';
import { formatPrice } from './price';

type Order = Outputs['commerce']['getOrder'];

const METHOD_NAMES = { pickup: 'Самовывоз', courier: 'Курьер', post: 'Почта' } as const;

/** The delivery chosen at check-out, and what the owner entered since (tracking number, reason). */
export function OrderDeliveryFacts({ order }: { order: Order }) {
  const d = order.delivery;
  return (
    <dl className="facts" data-testid="order-delivery">
      {d ? (
        <>
          <div>
            <dt>Доставка</dt>
            <dd>
              {METHOD_NAMES[d.method]}, {d.priceMinor > 0 ? formatPrice(d.priceMinor, order.currency) : 'бесплатно'}
            </dd>
          </div>
          <div>
            <dt>{d.method === 'pickup' ? 'Адрес самовывоза' : 'Адрес'}</dt>
            <dd className="wrap-anywhere">{d.address}</dd>
          </div>
          {d.recipientName ? (
            <div>
              <dt>Получатель</dt>
              <dd>{d.recipientName}</dd>
            </div>
          ) : null}
        </>
      ) : null}
      {order.trackingNumber ? (
        <div>
          <dt>Трек-номер</dt>
          <dd>
            <code>{order.trackingNumber}</code>
          </dd>
        </div>
      ) : null}
      {order.cancelReason ? (
        <div>
          <dt>Причина отмены</dt>
          <dd className="wrap-anywhere">{order.cancelReason}</dd>
        </div>
      ) : null}
    </dl>
  );
}

export function OrderActions({ agentId, order }: { agentId: string; order: Order }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const change = useMutation(trpc.commerce.setOrderStatus.mutationOptions());
  const [open, setOpen] = useState<'shipped' | 'cancelled' | null>(null);
  const [value, setValue] = useState('');
  const canShip = order.status === 'paid';
  const canDeliver = order.status === 'shipped';
  const canCancel = order.status === 'pending' || order.status === 'paid' || order.status === 'shipped';
  if (!canShip && !canDeliver && !canCancel) return null;

  const send = async (body: { status: 'shipped'; trackingNumber: string } | { status: 'delivered' } | { status: 'cancelled'; reason: string }) => {
    const result = await answerOf(change.mutateAsync({ agentId, orderId: order.id, ...body }));
    if (!result) return;
    queryClient.setQueryData(trpc.commerce.getOrder.queryKey({ agentId, orderId: order.id }), result);
    void queryClient.invalidateQueries({ queryKey: trpc.commerce.listOrders.pathKey() });
    setOpen(null);
    setValue('');
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (open === 'shipped') void send({ status: 'shipped', trackingNumber: value });
    if (open === 'cancelled') void send({ status: 'cancelled', reason: value });
  };
  const fieldError = apiError(change.error)?.fields?.[open === 'shipped' ? 'trackingNumber' : 'reason'];

  return (
    <div className="order-actions" data-testid="order-actions">
      <p className="hint">Клиент получит сообщение в VK о каждой смене статуса.</p>
      {open ? (
        <form onSubmit={onSubmit} noValidate>
          <Field
            label={open === 'shipped' ? 'Трек-номер' : 'Причина отмены'}
            hint={open === 'shipped' ? 'Его получит клиент, например RA123456789RU' : 'Её получит клиент'}
            error={fieldError}
          >
            {(props) => <input {...props} name={open === 'shipped' ? 'trackingNumber' : 'reason'} value={value} onChange={(e) => setValue(e.target.value)} />}
          </Field>
          <div className="row-actions">
            <Button type="submit" disabled={change.isPending}>
              {open === 'shipped' ? 'Отметить отправленным' : 'Отменить заказ'}
            </Button>
            <Button variant="secondary" onClick={() => setOpen(null)}>
              Назад
            </Button>
          </div>
        </form>
      ) : (
        <div className="row-actions">
          {canShip ? <Button onClick={() => setOpen('shipped')}>Отправлен</Button> : null}
          {canDeliver ? (
            <Button onClick={() => void send({ status: 'delivered' })} disabled={change.isPending}>
              Доставлен
            </Button>
          ) : null}
          {canCancel ? (
            <Button variant="secondary" onClick={() => setOpen('cancelled')}>
              Отменить…
            </Button>
          ) : null}
        </div>
      )}
      {fieldError ? null : <ErrorText error={apiError(change.error)} />}
    </div>
  );
}
