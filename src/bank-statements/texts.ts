// Bank statements' and счета's Russian texts: what a wrong statement file is told, why a payment matched no
// счёт, the operator's errors, and the payment notice mailed to the customer.

export const parserMessages = {
  atLine: (line: number, reason: string) => `Выписка, строка ${line}: ${reason}`,
  notAStatement: 'это не выписка в формате 1С (первая строка должна быть 1CClientBankExchange)',
  afterEnd: 'строки после КонецФайла',
  badCharacter: 'недопустимый символ (нулевой байт)',
  documentNotClosed: (line: number) => `документ, начатый в строке ${line}, не закрыт строкой КонецДокумента`,
  accountNotClosed: 'раздел СекцияРасчСчет не закрыт строкой КонецРасчСчет',
  endWithoutDocument: 'КонецДокумента без СекцияДокумент',
  unnamedDocument: 'Документ',
  notKeyValue: 'ожидается строка вида Ключ=Значение',
  noEnd: 'файл оборван: нет строки КонецФайла',
  fieldMissing: (key: string) => `в документе нет поля ${key}`,
  dateInvalid: (key: string, value: string) => `поле ${key}: ожидается дата ДД.ММ.ГГГГ, а не «${value.slice(0, 40)}»`,
  amountInvalid: (value: string) => `поле Сумма: ожидается сумма вида 1500.00, а не «${value.slice(0, 40)}»`,
};

/** Why a payment was not proposed for a счёт, by the machine code kept in bank_payments.problem. */
export const PROBLEMS = {
  no_invoice_number: 'В назначении платежа нет номера счёта',
  invoice_not_found: 'Счёта с номером из назначения платежа нет у плательщика с этим ИНН',
  payer_unknown: 'Плательщик неизвестен: ни у одного покупателя нет такого ИНН',
  amount_mismatch: 'Сумма платежа не равна сумме счёта',
  invoice_cancelled: 'Счёт отменён',
  invoice_paid: 'Счёт уже оплачен',
  invoice_taken: 'Счёт уже сопоставлен с другим платежом',
} as const;
export type Problem = keyof typeof PROBLEMS;

export const bankMessages = {
  accountMissing: 'Сначала укажите реквизиты оператора с расчётным счётом: выписка сопоставляется с ним',
  fileMissing: 'Приложите файл выписки в формате 1С (поле file формы или тело запроса)',
  fileEmpty: 'Файл выписки пуст',
  fileTooLarge: (mb: number) => `Файл выписки больше ${mb} МБ: выгрузите выписку за более короткий период`,
  importNotFound: 'Загрузка выписки не найдена',
  paymentNotFound: 'Платёж не найден',
  paymentDecided: 'Платёж уже зачислен или отклонён',
  invoiceNotFound: 'Счёт не найден',
  invoiceAlreadyPaid: 'Счёт уже оплачен',
  invoiceCancelledCannotPay: 'Счёт отменён',
  invoicePaidCannotCancel: 'Оплаченный счёт нельзя отменить',
  userNotFound: 'Учётная запись не найдена',
  assignTarget: 'Укажите номер счёта (invoiceNumber) или учётную запись (userId) — одно из двух',
  paidOnInFuture: 'Дата оплаты не может быть позже сегодняшнего дня',
  noteTooLong: 'до 500 символов',
  reasonRequired: 'Укажите причину (до 500 символов)',
  paymentsRequired: 'Выберите от 1 до 500 платежей',
};

/** The notice mailed to the customer (an organisation: its owners and accountants) when a transfer is credited. */
export const paymentMail = {
  subject: (amount: string) => `Платёж зачислен: ${amount}`,
  lines: (p: { amount: string; account: string; invoice: string | null; paidOn: string; balanceUrl: string }) => [
    [`Банковский перевод на ${p.amount} зачислен на баланс ${p.account}.`],
    [p.invoice ? `Оплачен счёт № ${p.invoice}, деньги поступили ${p.paidOn}.` : `Деньги поступили ${p.paidOn}.`],
    ['Баланс и выписка:', p.balanceUrl],
  ],
  personalAccount: 'учётной записи',
  organizationAccount: (name: string) => `организации «${name}»`,
};
