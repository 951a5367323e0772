// The statement's and the closing documents' Russian texts: error messages, the names of ledger
// operations, and the documents' fixed wording.

export const statementMessages = {
  dayInvalid: 'ожидается дата в формате ГГГГ-ММ-ДД, например 2026-11-01',
  periodInvalid: (maxDays: number) => `период задан неверно: начало не позже конца и не длиннее ${maxDays} дней`,
  monthInvalid: 'ожидается месяц в формате ГГГГ-ММ, например 2026-11',
  monthYearInvalid: 'ожидается месяц в формате ГГГГ-ММ (год от 0001), например 2026-11',
  monthInFuture: 'Этот месяц ещё не начался: документы есть за прошедшие месяцы и за текущий',
  documentKindUnknown: 'Документ не найден: есть invoice.pdf (счёт) и act.pdf (акт)',
  requisitesMissing: (contact: string | undefined) =>
    'Документы пока недоступны: оператор сервиса ещё не указал реквизиты своей организации' +
    (contact ? `. Обратитесь в поддержку: ${contact}` : '. Обратитесь в поддержку'),
  documentsBusy: 'Сейчас формируется слишком много документов: повторите запрос через несколько секунд',
  requiredText: (what: string, max: number) => `укажите ${what} (до ${max} символов)`,
  innInvalid: 'ИНН: 10 цифр у организации или 12 у ИП',
  kppInvalid: 'КПП: 9 цифр (у ИП оставьте пустым)',
  ogrnInvalid: 'ОГРН: 13 цифр у организации или 15 (ОГРНИП) у ИП',
  bikInvalid: 'БИК: 9 цифр',
  accountInvalid: '20 цифр',
  vatNoteTooLong: 'до 200 символов',
  customerNameTooLong: 'до 300 символов',
};

/** What a ledger row is, as the statement names it; `amountNano` tells an operator's credit from a debit. */
export function operationLabel(kind: string, amountNano: bigint): string {
  switch (kind) {
    case 'registration_bonus':
      return 'Бонус за регистрацию';
    case 'topup':
      return 'Пополнение баланса';
    case 'admin_credit':
      return amountNano >= 0n ? 'Начисление оператора' : 'Списание оператором';
    case 'usage':
      return 'Запросы к моделям через API';
    case 'assistant_usage':
      return 'Ответы ассистентов';
    default:
      return `Операция ${kind}`;
  }
}

/** «1 запрос», «3 запроса», «12 запросов». */
export function requestsText(count: number): string {
  const tens = count % 100;
  const ones = count % 10;
  const word = tens >= 11 && tens <= 14 ? 'запросов' : ones === 1 ? 'запрос' : ones >= 2 && ones <= 4 ? 'запроса' : 'запросов';
  return `${count.toLocaleString('ru-RU')} ${word}`;
}

export const MONTH_NAMES = ['январь', 'февраль', 'март', 'апрель', 'май', 'июнь', 'июль', 'август', 'сентябрь', 'октябрь', 'ноябрь', 'декабрь'];
export const MONTH_NAMES_GENITIVE = ['января', 'февраля', 'марта', 'апреля', 'мая', 'июня', 'июля', 'августа', 'сентября', 'октября', 'ноября', 'декабря'];

/** «ноябрь 2026». */
export const monthTitle = (month: string) => `${MONTH_NAMES[Number(month.slice(5, 7)) - 1]} ${month.slice(0, 4)}`;

export const documentTexts = {
  invoiceTitle: (number: string, date: string) => `Счёт № ${number} от ${date}`,
  actTitle: (number: string, date: string) => `Акт № ${number} от ${date} оказанных услуг`,
  currentMonth: (asOf: string) => `Месяц ещё не закончился: документ составлен по операциям на ${asOf} и не окончательный`,
  supplier: 'Исполнитель',
  customer: 'Заказчик',
  payer: 'Плательщик',
  recipient: 'Получатель',
  bank: 'Банк получателя',
  period: (from: string, to: string) => `Период: ${from} — ${to} (время UTC)`,
  columns: { n: '№', name: 'Наименование', quantity: 'Кол-во', amount: 'Сумма' },
  total: 'Итого',
  invoiceNote: 'Сервис работает по предоплате: счёт перечисляет поступившие за месяц платежи (пополнения баланса) — аванс за услуги доступа к API.',
  invoiceLine: (date: string) => `Предоплата услуг доступа к API Conduit (пополнение баланса от ${date})`,
  actNote: 'Вышеперечисленные услуги оказаны полностью и в срок. Заказчик претензий по объёму, качеству и срокам оказания услуг не имеет.',
  noInvoiceLines: 'Платежей за месяц не было.',
  noActLines: 'Услуг за месяц не оказано.',
  signatures: { supplier: 'Исполнитель: ____________________', customer: 'Заказчик: ____________________' },
  ownerEmail: (email: string) => `Пользователь ${email}`,
};

/** The statement file's column headers in its `excel-ru` form, by the machine names the default CSV keeps. */
export const statementCsvHeadersRu = {
  day: 'Дата',
  at: 'Время',
  kind: 'Вид операции',
  title: 'Операция',
  detail: 'Подробности',
  amount: 'Сумма',
  balance_after: 'Остаток после',
  currency: 'Валюта',
} as const;

/** The `kind` column of an `excel-ru` statement file; a kind not named here stays as it is. */
export const statementCsvKindsRu: Readonly<Record<string, string>> = {
  opening_balance: 'остаток на начало',
  closing_balance: 'остаток на конец',
  registration_bonus: 'бонус',
  topup: 'пополнение',
  admin_credit: 'оператор',
  usage: 'запросы через API',
  assistant_usage: 'ассистенты',
};
