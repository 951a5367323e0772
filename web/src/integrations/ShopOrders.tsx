// Orders of an E-commerce agent, newest first, filtered by status and paged; one order opens with its
// items (a snapshot taken at checkout: later catalog edits do not change it).
import { useQuery } from '@tanstack/react-query';
import { apiError, useTRPC } from '../app/trpc';
import { useEffect, useId, useRef, useState } from 'react';
import type { OrderStatus } from '@server/commerce/orders';
import type { Outputs } from '../app/api';
import { Pager, useCursorPages } from '../shared/Pager';
import { Button, ErrorText, Loading } from '../shared/ui';
import { formatDateTime, formatInt } from '../shared/format';
import { formatPrice } from './price';
import { orderStatusLabels } from '../shared/texts';
import { OrderActions, OrderDeliveryFacts } from './ShopOrderActions';

type Order = Outputs['commerce']['getOrder'];

const PAGE_SIZE = 20;
const STATUS_BADGE: Record<OrderStatus, string> = {
  pending: 'badge',
  paid: 'badge badge-ok',
  shipped: 'badge badge-ok',
  delivered: 'badge badge-ok',
  cancelled: 'badge badge-off',
};

const StatusBadge = ({ status }: { status: OrderStatus }) => <span className={STATUS_BADGE[status]}>{orderStatusLabels[status]}</span>;

function OrderDetails({ agentId, orderId, onClose }: { agentId: string; orderId: string; onClose(): void }) {
  const trpc = useTRPC();
  const order = useQuery(trpc.commerce.getOrder.queryOptions({ agentId, orderId }));
  const heading = useRef<HTMLHeadingElement>(null);
  const headingId = useId();
  const o: Order | undefined = order.data?.id === orderId ? order.data : undefined;
  const loaded = o !== undefined;
  // The keyboard user is moved to the heading when another order opens and again when its number arrives in it.
  // biome-ignore lint/correctness/useExhaustiveDependencies(orderId): another order opened in the same details only says «focus again»
  // biome-ignore lint/correctness/useExhaustiveDependencies(loaded): the order's arrival (its number in the heading) only says «focus again»
  useEffect(() => heading.current?.focus(), [orderId, loaded]);

  return (
    <div className="order-details" role="region" aria-labelledby={headingId} data-testid="order-details">
      <div className="section-head">
        <h4 id={headingId} ref={heading} tabIndex={-1}>
          {o ? `Заказ ${o.number}` : 'Заказ'}
        </h4>
        <Button variant="secondary" onClick={onClose}>
          Закрыть заказ
        </Button>
      </div>
      {order.isPending ? <Loading text="Загружаем заказ…" /> : null}
      <ErrorText error={apiError(order.error)} />
      {o ? (
        <>
          <dl className="facts">
            <div>
              <dt>Статус</dt>
              <dd>
                <StatusBadge status={o.status} />
              </dd>
            </div>
            <div>
              <dt>Оформлен</dt>
              <dd>{formatDateTime(o.createdAt)}</dd>
            </div>
            {o.paidAt ? (
              <div>
                <dt>Оплачен</dt>
                <dd>{formatDateTime(o.paidAt)}</dd>
              </div>
            ) : null}
            <div>
              <dt>Телефон клиента</dt>
              <dd>{o.clientPhone ?? '—'}</dd>
            </div>
            {o.paymentId ? (
              <div>
                <dt>Платёж</dt>
                <dd>
                  <code>{o.paymentId}</code>
                </dd>
              </div>
            ) : null}
          </dl>
          <OrderDeliveryFacts order={o} />
          <OrderActions agentId={agentId} order={o} />
          <div className="table-wrap">
            <table className="stack-table" data-testid="order-items">
              <thead>
                <tr>
                  <th scope="col">Товар</th>
                  <th scope="col" className="num">
                    Цена
                  </th>
                  <th scope="col" className="num">
                    Кол-во
                  </th>
                  <th scope="col" className="num">
                    Сумма
                  </th>
                </tr>
              </thead>
              <tbody>
                {o.items.map((item) => (
                  <tr key={item.productId}>
                    <td data-label="Товар">{item.title}</td>
                    <td data-label="Цена" className="num">
                      {formatPrice(item.priceMinor, o.currency)}
                    </td>
                    <td data-label="Кол-во" className="num">
                      {formatInt(item.quantity)}
                    </td>
                    <td data-label="Сумма" className="num">
                      {formatPrice(item.priceMinor * item.quantity, o.currency)}
                    </td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                {o.delivery ? (
                  <tr>
                    <th scope="row" colSpan={3}>
                      Доставка
                    </th>
                    <td className="num" data-label="Доставка" data-testid="order-delivery-price">
                      {formatPrice(o.delivery.priceMinor, o.currency)}
                    </td>
                  </tr>
                ) : null}
                <tr>
                  <th scope="row" colSpan={3}>
                    Итого
                  </th>
                  <td className="num" data-label="Итого" data-testid="order-total">
                    {formatPrice(o.totalMinor, o.currency)}
                  </td>
                </tr>
              </tfoot>
            </table>
          </div>
          <p className="hint">
            Ссылка на оплату:{' '}
            <a href={o.paymentLink} target="_blank" rel="noreferrer noopener">
              <code>{o.paymentLink}</code>
            </a>
          </p>
        </>
      ) : null}
    </div>
  );
}

export function ShopOrders({ agentId }: { agentId: string }) {
  const [status, setStatus] = useState<OrderStatus | ''>('');
  const pages = useCursorPages();
  const trpc = useTRPC();
  const list = useQuery(trpc.commerce.listOrders.queryOptions({ agentId, limit: PAGE_SIZE, cursor: pages.cursor, status: status || undefined }));
  const [openId, setOpenId] = useState<string | null>(null);
  const filterId = useId();
  // While another filter's answer is on its way, the previous filter's orders are not shown as if they matched.
  const answeredFor = useRef(status);
  if (list.data && !list.isPlaceholderData) answeredFor.current = status;
  const current = answeredFor.current === status ? list.data : undefined;
  const orders = current?.orders ?? [];

  return (
    <section className="shop-part" aria-labelledby="shop-orders-title" data-testid="shop-orders">
      <div className="section-head">
        <h3 id="shop-orders-title">Заказы</h3>
        <div className="filter">
          <label htmlFor={filterId}>Статус</label>
          <select
            id={filterId}
            name="orderStatus"
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as OrderStatus | '');
              pages.reset();
            }}
          >
            <option value="">Все</option>
            {(Object.keys(orderStatusLabels) as OrderStatus[]).map((s) => (
              <option key={s} value={s}>
                {orderStatusLabels[s]}
              </option>
            ))}
          </select>
        </div>
        <Button variant="secondary" onClick={() => void list.refetch()} disabled={list.isFetching}>
          Обновить
        </Button>
      </div>

      <ErrorText error={apiError(list.error)} />
      {list.isFetching ? <Loading text="Загружаем заказы…" /> : null}
      {current && !list.isFetching && orders.length === 0 ? (
        <p className="muted">{status ? `Заказов со статусом «${orderStatusLabels[status]}» нет.` : 'Заказов пока нет.'}</p>
      ) : null}
      {orders.length > 0 ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="orders-table" aria-busy={list.isFetching}>
            <thead>
              <tr>
                <th scope="col">Номер</th>
                <th scope="col">Дата</th>
                <th scope="col" className="num">
                  Сумма
                </th>
                <th scope="col">Статус</th>
                <th scope="col">Телефон клиента</th>
              </tr>
            </thead>
            <tbody>
              {orders.map((order) => (
                <tr key={order.id} data-order-id={order.id} className={openId === order.id ? 'row-open' : undefined}>
                  <td data-label="Номер">
                    <button
                      type="button"
                      className="link-button"
                      aria-expanded={openId === order.id}
                      aria-label={`Заказ ${order.number}: состав`}
                      onClick={() => setOpenId(openId === order.id ? null : order.id)}
                    >
                      {order.number}
                    </button>
                  </td>
                  <td data-label="Дата">{formatDateTime(order.createdAt)}</td>
                  <td data-label="Сумма" className="num">
                    {formatPrice(order.totalMinor, order.currency)}
                  </td>
                  <td data-label="Статус">
                    <StatusBadge status={order.status} />
                  </td>
                  <td data-label="Телефон">{order.clientPhone ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager pages={pages} nextCursor={current?.nextCursor} loading={list.isFetching} label="Страницы заказов" />

      {openId ? <OrderDetails agentId={agentId} orderId={openId} onClose={() => setOpenId(null)} /> : null}
    </section>
  );
}
