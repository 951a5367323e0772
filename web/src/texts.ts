// Russian labels the page uses in more than one place.
import type { AgentType } from '../../src/agents/fields';
import type { OrderStatus } from '../../src/commerce/orders';

export const agentTypeLabels: Record<AgentType, string> = {
  creator: 'Креатор (контент и общение)',
  service: 'Сервис (запись на услуги)',
  ecommerce: 'Интернет-магазин',
};

export const agentTypeShort: Record<AgentType, string> = {
  creator: 'Креатор',
  service: 'Сервис',
  ecommerce: 'Магазин',
};

export const usageStatusLabels: Partial<Record<string, string>> = {
  ok: 'Успешно',
  client_closed: 'Клиент отключился',
  upstream_error: 'Ошибка модели',
  upstream_timeout: 'Модель не ответила',
  upstream_rejected: 'Модель отклонила',
  upstream_dropped: 'Ответ оборван',
};

export const orderStatusLabels: Record<OrderStatus, string> = {
  pending: 'Ожидает оплаты',
  paid: 'Оплачен',
  cancelled: 'Отменён',
};
