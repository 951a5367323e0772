// The balance top-ups' Russian messages (YooKassa payments and their notifications).
export const billingMessages = {
  topupsDisabled: 'Пополнение баланса не настроено: платёжный сервис ЮKassa не подключён',
  topupAmountInvalid: 'укажите сумму числом в валюте баланса, не больше двух знаков после запятой (например, 500 или 99.90)',
  /** The sums as formatMoneyText writes them: «от 10,00 ₽ до 100 000,00 ₽». */
  topupAmountRange: (min: string, max: string) => `должна быть от ${min} до ${max}`,
  topupNotFound: 'Пополнение не найдено',
  topupPaymentUnavailable: 'Платёжный сервис ЮKassa сейчас недоступен: пополнение не создано, попробуйте позже',
  topupPaymentRejected: 'ЮKassa отклонила создание платежа: пополнение не создано, попробуйте позже или обратитесь в поддержку',
  topupPaymentDescription: (amount: string) => `Пополнение баланса на ${amount}`,
  topupReceiptItem: 'Пополнение баланса',
  yookassaNotificationsDisabled: 'Уведомления ЮKassa не принимаются: пополнение баланса не настроено',
  yookassaBadNotification: 'Уведомление не похоже на уведомление ЮKassa: нужны type "notification", event и object.id',
  yookassaBadPaymentId: 'В уведомлении не идентификатор платежа ЮKassa: ожидается 36 символов из шестнадцатеричных цифр и дефисов',
  yookassaNotificationsThrottled: 'Слишком много уведомлений ЮKassa с вашего адреса, повторите позже',
  topupTooManyPending: (max: number) => `Достигнут лимит неоплаченных пополнений (${max}): оплатите одно из них или дождитесь, пока ЮKassa отменит неоплаченные`,
  saveCardInvalid: 'ожидается true или false',
  autoTopupEnabledInvalid: 'ожидается true или false',
  autoTopupAmountInvalid: 'укажите сумму пополнения числом больше нуля, не больше двух знаков после запятой (например, 500)',
  autoTopupThresholdInvalid: 'укажите порог числом от нуля, не больше двух знаков после запятой (например, 100)',
  autoTopupMonthlyLimitInvalid: 'укажите лимит в месяц числом больше нуля, не больше двух знаков после запятой (например, 3000)',
  autoTopupLimitBelowAmount: 'лимит в месяц не может быть меньше суммы одного пополнения',
  autoTopupNeedsCard: 'Чтобы включить автопополнение, сохраните карту: пополните баланс с отметкой «Сохранить карту»',
  autoTopupPaymentDescription: (amount: string) => `Автопополнение баланса на ${amount}`,
} as const;

/** YooKassa's cancellation reasons an auto payment can end with, in the words the failure mail uses. */
const autoPaymentReasons: Partial<Record<string, string>> = {
  insufficient_funds: 'на карте недостаточно средств',
  card_expired: 'истёк срок действия карты',
  permission_revoked: 'разрешение на списания с карты отозвано',
  call_issuer: 'банк отклонил оплату: обратитесь в банк, выпустивший карту',
  fraud_suspected: 'банк заподозрил мошенничество и отклонил платёж',
  general_decline: 'банк отклонил платёж без указания причины',
  issuer_unavailable: 'банк, выпустивший карту, недоступен',
  payment_method_limit_exceeded: 'исчерпан лимит платежей по карте',
  payment_method_restricted: 'операции по карте запрещены',
  payment_not_created: 'платёжный сервис ЮKassa не принял платёж',
};

export const autoPaymentReasonText = (reason: string | null) => (reason ? (autoPaymentReasons[reason] ?? `платёж отклонён (код ${reason})`) : 'платёж отклонён');

/** The mail after an auto payment failed: why, and what became of auto top-up. */
export const autoTopupFailedMail = {
  subject: (amount: string) => `Автопополнение на ${amount} не прошло`,
  lines: (p: { amount: string; card: string; reason: string; outcome: 'retry' | 'off' | 'card_removed'; failures: number; max: number; url: string }) => [
    ['Здравствуйте!'],
    [`Не удалось пополнить баланс Conduit на ${p.amount} с карты ${p.card}: ${p.reason}.`],
    [
      p.outcome === 'card_removed'
        ? 'Карта больше не может использоваться для автоплатежей: мы удалили её, автопополнение выключено. Чтобы включить его снова, пополните баланс с отметкой «Сохранить карту».'
        : p.outcome === 'off'
          ? `Это ${p.failures}-я неудача подряд, поэтому автопополнение выключено. Проверьте карту и включите его снова на странице пополнения.`
          : `Автопополнение остаётся включённым: следующая попытка будет, когда баланс снова поднимется до порога и опустится ниже. После ${p.max} неудач подряд оно выключится.`,
    ],
    ['Пополнить баланс вручную или изменить настройки автопополнения:', p.url],
  ],
};
