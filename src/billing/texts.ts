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
} as const;
