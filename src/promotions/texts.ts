// Promo codes' Russian texts: what a person typing a code is told, the operator's form errors, the CSV's headers.

export const promoMessages = {
  /** Unknown codes: the same words whether nothing matched or the campaign was stopped — no hint which. */
  invalid: 'Такого промокода нет или он больше не действует. Проверьте, что код введён без ошибок',
  expired: 'Срок действия промокода истёк',
  used: 'Этот промокод уже использован',
  alreadyRedeemed: 'Вы уже активировали промокод этой акции: по одной акции — один раз на учётную запись',
  notEligible: 'Этот промокод только для учётных записей, зарегистрированных после начала акции',
  tooManyAttempts: 'Слишком много попыток ввести промокод, повторите позже',
  codeRequired: 'введите промокод',
  codeTooLong: 'промокод — не длиннее 64 символов',

  nameRequired: 'название акции — от 1 до 200 символов',
  amountInvalid: 'сумма — положительное число в валюте баланса, не больше 100 000, не больше двух знаков после запятой',
  codeCountInvalid: 'число кодов — целое от 1 до 10 000',
  usesInvalid: 'число активаций — целое от 1 до 1 000 000',
  expiresInvalid: 'дата окончания — дата и время в формате ISO 8601 (например, 2026-12-31T23:59:59+03:00)',
  expiresInPast: 'дата окончания должна быть в будущем',
  registeredAfterInvalid: 'дата — в формате ISO 8601 (например, 2026-12-01T00:00:00+03:00)',
  sharedCodeInvalid: 'код — от 4 до 32 латинских букв, цифр и дефисов',
  sharedCodeTaken: 'Такой код уже есть в другой акции: выберите другой',
  campaignNotFound: 'Акция не найдена',
  campaignAlreadyStopped: 'Акция уже остановлена',
} as const;

/** The codes CSV's columns (as the file names them: code, uses, max_uses, redeemed). */
export const codesCsvHeadersRu: Readonly<Record<string, string>> = {
  code: 'Промокод',
  uses: 'Активаций',
  max_uses: 'Всего активаций',
  campaign: 'Акция',
  amount: 'Сумма',
  expires_at: 'Действует до',
};
