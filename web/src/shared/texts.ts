// Russian labels the page uses in more than one place.
import { formatInt } from './format';
import type { AgentType, AgentUnavailableReason } from '@server/agents/fields';
import type { SkipReason } from '@server/admin/price-import';
import type { TopupStatus } from '@server/billing/topups-input';
import type { OrderStatus } from '@server/commerce/orders';
import type { LimitReset } from '@server/keys/limits';

export const agentTypeLabels: Record<AgentType, string> = {
  creator: 'Креатор (контент и общение)',
  service: 'Сервис (запись на услуги)',
  ecommerce: 'Интернет-магазин',
};

/** Why the agent's assistant answers no client (the agent read's unavailableReason), as the agent page says it. */
export const agentUnavailableLabels: Record<AgentUnavailableReason, string> = {
  account_blocked:
    'Ассистент не отвечает клиентам: аккаунт заблокирован администратором. Клиенты получают сообщение «Ассистент сейчас недоступен», модель не вызывается и ничего не списывается.',
  out_of_balance:
    'Ассистент не отвечает клиентам: на балансе не хватило средств на ответ модели. Клиентам сказано, что ассистент временно недоступен; пополните баланс — он снова будет отвечать.',
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
  server_shutdown: 'Сервер перезапускался',
  refused_balance: 'Отклонён: недостаточно средств',
  refused_key_limit: 'Отклонён: лимит ключа исчерпан',
  refused_member_limit: 'Отклонён: лимит участника исчерпан',
};

export const orderStatusLabels: Record<OrderStatus, string> = {
  pending: 'Ожидает оплаты',
  paid: 'Оплачен',
  shipped: 'Отправлен',
  delivered: 'Доставлен',
  cancelled: 'Отменён',
};

export const topupStatusLabels: Record<TopupStatus, string> = {
  pending: 'Ожидает оплаты',
  succeeded: 'Оплачено',
  canceled: 'Отменено',
};

/** Why YooKassa (or the server) canceled a payment: its English codes, as the buyer should read them. */
const cancellationReasonLabels: Partial<Record<string, string>> = {
  '3d_secure_failed': 'не пройдена проверка 3-D Secure',
  call_issuer: 'банк отклонил оплату: обратитесь в банк, выпустивший карту',
  canceled_by_merchant: 'платёж отменён продавцом',
  card_expired: 'истёк срок действия карты',
  country_forbidden: 'оплата картой этой страны недоступна',
  deal_expired: 'истёк срок сделки',
  expired_on_capture: 'истёк срок подтверждения платежа',
  expired_on_confirmation: 'время на оплату истекло: платёж не был подтверждён',
  fraud_suspected: 'платёж заблокирован из-за подозрения в мошенничестве',
  general_decline: 'платёж отклонён без указания причины',
  identification_required: 'превышены ограничения для неидентифицированного кошелька ЮMoney',
  insufficient_funds: 'недостаточно средств для оплаты',
  internal_timeout: 'технические неполадки на стороне ЮKassa',
  invalid_card_number: 'неверный номер карты',
  invalid_csc: 'неверный код CVV2 (CVC2)',
  issuer_unavailable: 'банк, выпустивший карту, недоступен',
  payment_method_limit_exceeded: 'исчерпан лимит платежей для этого способа оплаты',
  payment_method_restricted: 'операции этим способом оплаты запрещены',
  permission_revoked: 'разрешение на списания отозвано',
  unsupported_mobile_operator: 'оплата с номера этого оператора недоступна',
  payment_not_created: 'платёж не был создан: платёжный сервис не ответил',
  canceled: 'платёж отменён',
};

export function cancellationReasonText(reason: string | null): string {
  if (!reason) return 'причина не указана';
  return cancellationReasonLabels[reason] ?? `причина: ${reason}`;
}

export const limitResetLabels: Record<LimitReset, string> = {
  none: 'без сброса',
  day: 'в сутки',
  week: 'в неделю',
  month: 'в месяц',
};

export const roleLabels: Record<'user' | 'admin', string> = {
  user: 'Пользователь',
  admin: 'Администратор',
};

export const ledgerKindLabels: Partial<Record<string, string>> = {
  registration_bonus: 'Стартовый бонус',
  usage: 'Запросы по API-ключам',
  assistant_usage: 'Запросы агентов',
  topup: 'Пополнение через ЮKassa',
  admin_credit: 'Начисление или списание администратором',
  referral: 'Вознаграждение за приглашённого',
  promo: 'Промокод',
};

const russianPlural = new Intl.PluralRules('ru-RU');
const requestWords: Record<string, string> = { one: 'запрос', few: 'запроса', many: 'запросов', other: 'запроса' };

/**
 * A ledger entry's reference as the operator reads it. A usage entry sums one batch of settlements and is
 * referenced `requests:<count>`: that is shown in words («3 запроса»); any other reference (a payment id,
 * an operator's ticket) is an identifier and stays as it is.
 */
export function ledgerReference(reference: string): { words: string } | { code: string } {
  const batch = /^requests:(\d+)$/.exec(reference);
  if (!batch) return { code: reference };
  const count = Number(batch[1]);
  return { words: `${formatInt(count)} ${requestWords[russianPlural.select(count)]}` };
}

export const skipReasonLabels: Record<SkipReason, string> = {
  no_pricing: 'провайдер не указал цену',
  variable_pricing: 'цена меняется от запроса к запросу',
  invalid_id: 'идентификатор не подходит для таблицы цен',
  not_found: 'модели нет в списке провайдера',
  too_expensive: 'цена выше допустимой',
};
