// The administration's Russian messages: users, credits, statistics, audit, prices, providers and model routes.
import type { AuditAction } from './audit-actions';
export const adminMessages = {
  adminPasswordResetSent: (email: string) => `Ссылка для сброса пароля отправлена на ${email}`,
  adminSessionsEnded: 'Все сеансы пользователя завершены',
  adminCannotBlockSelf: 'Нельзя заблокировать собственную учётную запись',
  creditAmountInvalid: (max: number) => `укажите ненулевую сумму (по модулю не больше ${max.toLocaleString('ru-RU')}) с точностью не более 9 знаков после запятой`,
  creditReasonRequired: 'укажите причину начисления (до 500 символов)',
  creditReferenceInvalid: 'укажите идентификатор начисления длиной от 1 до 200 символов',
  creditReferenceTaken: 'Ссылка операции: уже использована для другого начисления (другой пользователь или сумма)',
  creditBelowZero: (available: string) =>
    `Списание сделает баланс отрицательным: сейчас можно списать не больше ${available}. ` +
    'Деньги, зарезервированные под выполняемые запросы, списать нельзя: повторите позже',
  statsDateInvalid: 'ожидается дата в формате ГГГГ-ММ-ДД, например 2026-01-31',
  statsRangeInvalid: (maxDays: number) => `Период задан неверно: начало не позже конца и не длиннее ${maxDays} дней`,
  auditEmailTooBroad: 'Под этот фрагмент e-mail подходит слишком много пользователей: введите адрес точнее',
  auditActionInvalid: 'Неизвестное действие журнала',
  auditRangeInvalid: 'Период задан неверно: начало не позже конца',
  adminKeyRevoked: 'Ключ пользователя отозван',
  pricePatternInvalid: 'укажите идентификатор модели (например, openai/gpt-4o-mini) или префикс со звёздочкой в конце (openai/*, *)',
  priceKindInvalid: 'ожидается per_token (за токены) или per_second (за секунду аудио)',
  pricePerSecondMissing: 'укажите цену секунды аудио',
  priceValueInvalid: (max: number) => `число от 0 до ${max.toLocaleString('ru-RU')} с точностью не более 9 знаков после запятой`,
  priceNotFound: 'Цена для этого шаблона не задана',
  providerNameInvalid: 'от 1 до 100 символов',
  providerBaseUrlInvalid: 'http(s)-адрес без параметров, например https://api.openai.com/v1',
  providerApiKeyInvalid: 'печатные символы ASCII без пробелов, до 1000, или null, чтобы убрать ключ',
  providerTimeoutInvalid: 'целое число миллисекунд от 100 до 250000',
  providerProtocolInvalid: 'протокол: openai или anthropic',
  providerProbeModelInvalid: 'id модели: печатные символы ASCII без пробелов, до 200, или null — тогда проверка спрашивает GET /models',
  providerBalanceUrlInvalid: 'http(s)-адрес, до 500 символов, или null',
  providerBalancePathInvalid: 'путь в JSON через точку, например data.balance, или null',
  providerBalanceThresholdInvalid: 'число от 0 до 1000000000 или null, чтобы не предупреждать',
  providerNotFound: 'Провайдер не найден',
  providerDeleted: 'Провайдер удалён',
  providerBuiltIn:
    'Встроенный провайдер default задаётся переменными окружения UPSTREAM_BASE_URL и UPSTREAM_API_KEY; здесь его можно только вернуть в работу (PATCH с пустым телом) после отключения',
  providerInUse: (patterns: string) => `Провайдер используется в маршрутах (${patterns}): сначала измените или удалите их`,
  routeProviderUnknown: 'в providerId укажите id существующего провайдера или default',
  routePriorityInvalid: 'priority — целое число от 0 до 1000 (меньше — раньше)',
  routeWeightInvalid: 'weight — целое число от 1 до 1000',
  routeModelInvalid: 'model — идентификатор модели у провайдера, до 200 печатных символов без пробелов',
  routeTargetsInvalid: (max: number) => `от 1 до ${max} провайдеров`,
  modelRouteNotFound: 'Маршрут для этого шаблона не задан',
  routeDeleted: 'Маршрут удалён',
  priceDeleted: 'Цена удалена',
  priceMultiplierInvalid: 'положительное число не больше 1000000',
  priceImportEmpty: 'перечислите идентификаторы моделей для импорта (не больше 2000)',
} as const;

/**
 * Every action of the operator audit by its Russian name: a Record over the action list, so an action added
 * to AUDIT_ACTIONS does not compile until it is named here.
 */
export const auditActionTexts: Record<AuditAction, string> = {
  'user.credit': 'Начисление или списание',
  'user.block': 'Блокировка',
  'user.unblock': 'Снятие блокировки',
  'user.password_reset_sent': 'Отправлена ссылка для сброса пароля',
  'user.sessions_ended': 'Завершены все сеансы',
  'key.revoke': 'Ключ пользователя отозван',
  'key.limit': 'Лимит расходов ключа пользователя',
  'price.upsert': 'Цена задана',
  'price.delete': 'Цена удалена',
  'price.import': 'Импорт цен',
  'provider.create': 'Провайдер добавлен',
  'provider.update': 'Провайдер изменён',
  'provider.delete': 'Провайдер удалён',
  'provider.probe': 'Провайдер проверен',
  'route.upsert': 'Маршрут изменён',
  'route.delete': 'Маршрут удалён',
  'requisites.update': 'Реквизиты оператора изменены',
  'documents.issue': 'Закрывающие документы за месяц выпущены',
  'documents.correct': 'Закрывающий документ исправлен',
  'invoice.mark_paid': 'Счёт отмечен оплаченным',
  'invoice.cancel': 'Счёт отменён',
  'bank_statement.import': 'Загружена банковская выписка',
  'bank_payment.credit': 'Платёж по выписке зачислен',
  'bank_payment.assign': 'Платёж по выписке зачислен вручную',
  'bank_payment.ignore': 'Платёж по выписке отклонён',
  'promo_campaign.create': 'Акция с промокодами создана',
  'promo_campaign.stop': 'Акция с промокодами остановлена',
  'organization.create': 'Организация создана',
  'organization.update': 'Реквизиты организации изменены',
  'organization.invite': 'Приглашение в организацию',
  'organization.invite_withdraw': 'Приглашение в организацию отозвано',
  'organization.join': 'Вступление в организацию',
  'organization.member_update': 'Участник организации изменён',
  'organization.member_remove': 'Участник удалён из организации',
};

/** The fields an audit row's before and after carry, as the log names them. */
export const auditFieldTexts: Readonly<Record<string, string>> = {
  balance: 'баланс',
  amount: 'сумма',
  reason: 'причина',
  reference: 'ссылка',
  invoiceStatus: 'состояние счёта',
  paymentStatus: 'состояние платежа',
  paidOn: 'дата оплаты',
  accountId: 'учётная запись',
  invoice: 'счёт',
  payer: 'плательщик',
  document: 'платёжный документ',
  file: 'файл',
  blocked: 'заблокирован',
  blockedAt: 'заблокирован с',
  email: 'e-mail',
  pattern: 'шаблон',
  promptPerMillion: 'запрос за 1M',
  completionPerMillion: 'ответ за 1M',
  kind: 'вид цены',
  perSecond: 'секунда аудио',
  multiplier: 'множитель',
  prices: 'цены',
  ledgerEntryId: 'запись журнала баланса',
  keyName: 'ключ',
  keyPrefix: 'начало ключа',
  active: 'действует',
  spendLimit: 'лимит расходов',
  limitReset: 'период лимита',
  name: 'название',
  baseUrl: 'адрес',
  hasApiKey: 'ключ доступа задан',
  apiKeyChanged: 'ключ доступа заменён',
  enabled: 'включён',
  timeoutMs: 'время ожидания ответа',
  protocol: 'протокол',
  probeModel: 'модель для проверки',
  balanceUrl: 'адрес баланса',
  balancePath: 'путь к балансу',
  balanceThreshold: 'порог баланса',
  ok: 'отвечает',
  status: 'код ответа',
  latencyMs: 'время ответа, мс',
  error: 'ошибка',
  state: 'состояние',
  targets: 'провайдеры',
  companyName: 'название организации',
  inn: 'ИНН',
  kpp: 'КПП',
  ogrn: 'ОГРН',
  address: 'адрес',
  bankName: 'банк',
  bik: 'БИК',
  account: 'расчётный счёт',
  correspondentAccount: 'корреспондентский счёт',
  vatNote: 'НДС',
  campaignKind: 'вид промокодов',
  codeCount: 'кодов',
  usesPerCode: 'активаций одного кода',
  expiresAt: 'действует до',
  registeredAfter: 'для зарегистрированных после',
  stoppedAt: 'остановлена',
};

/** A provider's health as the audit names it (the built-in provider's «reset» writes it). */
export const auditProviderStateTexts: Readonly<Record<string, string>> = {
  up: 'работает',
  cooling_down: 'пауза после сбоев',
  disabled: 'отключён после отказа в доступе',
};

/** A promo campaign's kind (promotions/). */
export const auditCampaignKindTexts: Readonly<Record<string, string>> = {
  unique: 'уникальные коды, по одной активации',
  shared: 'один общий код',
};

export const auditLimitResetTexts: Readonly<Record<string, string>> = {
  none: 'без сброса',
  day: 'в сутки',
  week: 'в неделю',
  month: 'в месяц',
};

export const auditTargetTexts = {
  user: (email: string) => `Пользователь ${email}`,
  provider: (name: string) => `Провайдер «${name}»`,
  route: (pattern: string) => `Маршрут ${pattern}`,
  price: (pattern: string) => `Цена ${pattern}`,
  priceTable: 'Таблица цен',
  requisites: 'Реквизиты оператора',
  invoice: (number: string) => `Счёт № ${number}`,
  bankStatement: 'Банковская выписка',
  bankPayment: 'Платёж по выписке',
  organization: (name: string) => `Организация ${name}`,
  promoCampaign: (name: string) => `Акция «${name}»`,
  gone: 'удалён',
};

/** The daily figures file's column headers in its `excel-ru` form, by the machine names the default CSV keeps. */
export const statsCsvHeadersRu = {
  day: 'Дата (сутки по Гринвичу)',
  revenue: 'Выручка',
  credits: 'Начисления',
  spend: 'Расход',
  provider_cost: 'Затраты на провайдеров',
  margin: 'Маржа',
  requests: 'Запросов',
  currency: 'Валюта',
} as const;

/** The operators' mail when a provider's balance falls below its threshold (provider-balances.ts); amounts in the provider's own currency. */
export function providerBalanceMail(name: string, balance: string, threshold: string, url: string): { subject: string; lines: string[][] } {
  return {
    subject: `Баланс провайдера «${name}» ниже порога`,
    lines: [
      [`Баланс провайдера «${name}»: ${balance} — ниже порога ${threshold}.`, 'Пополните счёт у провайдера, пока запросы не начали получать отказ.'],
      [`Провайдеры в консоли: ${url}`],
      ['Следующее письмо придёт, только если баланс поднимется выше порога и снова опустится ниже.'],
    ],
  };
}
