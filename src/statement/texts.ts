// The statement's and the closing documents' Russian texts: error messages, the names of ledger
// operations, and the documents' fixed wording.

export const statementMessages = {
  dayInvalid: 'ожидается дата в формате ГГГГ-ММ-ДД, например 2026-11-01',
  periodInvalid: (maxDays: number) => `период задан неверно: начало не позже конца и не длиннее ${maxDays} дней`,
  monthInvalid: 'ожидается месяц в формате ГГГГ-ММ, например 2026-11',
  monthYearInvalid: 'ожидается месяц в формате ГГГГ-ММ (год от 0001), например 2026-11',
  monthInFuture: 'Этот месяц ещё не начался: документы есть за прошедшие месяцы и за текущий',
  documentKindUnknown: 'Документ не найден: за месяц есть act.pdf (акт); счёт на оплату выставляется на сумму в разделе «Выписка»',
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
  vatRateInvalid: 'ставка НДС: 0, 5, 7, 10, 20 или 22 процента, либо null — без НДС',
  signerNameTooLong: 'до 200 символов',
  closingDocumentsInvalid: 'закрывающие документы: act (акт), act_and_upd (акт и УПД) или upd (УПД)',
  updStatusInvalid: 'статус УПД: 1, 2 или null — по ставке НДС',
  customerNameTooLong: 'до 300 символов',
  customerKppInvalid: 'КПП: 9 цифр (у ИП нет КПП — оставьте пустым)',
  customerAddressTooLong: 'до 500 символов',
  kppOfSoleProprietor: 'У ИП (ИНН из 12 цифр) нет КПП — оставьте поле пустым',
  invoiceAmountInvalid: (min: number, max: number) =>
    `сумма счёта — от ${min.toLocaleString('ru-RU')} до ${max.toLocaleString('ru-RU')}, не больше двух знаков после запятой`,
  invoiceNotFound: 'Счёт не найден',
  bankTransfer: (invoice: string | null) => (invoice ? `Банковский перевод по счёту № ${invoice}` : 'Банковский перевод'),
  invoiceRequisitesMissing: 'Счёт выставляется на организацию или ИП: сначала укажите реквизиты покупателя — название и ИНН в блоке «Реквизиты для документов»',
  invoicesTooMany: (perDay: number) => `За сутки можно выставить не больше ${perDay} счетов: повторите позже`,
};

/** What a ledger row is, as the statement names it; `amountNano` tells an operator's credit from a debit. */
export function operationLabel(kind: string, amountNano: bigint): string {
  switch (kind) {
    case 'registration_bonus':
      return 'Стартовый бонус';
    case 'topup':
      return 'Пополнение баланса';
    case 'admin_credit':
      return amountNano >= 0n ? 'Начисление оператора' : 'Списание оператором';
    case 'usage':
      return 'Запросы к моделям через API';
    case 'assistant_usage':
      return 'Ответы ассистентов';
    case 'referral':
      return 'Вознаграждение за приглашённого';
    case 'promo':
      return 'Промокод';
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
  // The счёт на оплату.
  invoiceTitle: (number: number, date: string) => `Счёт на оплату № ${number} от ${date}`,
  bank: 'Банк получателя',
  bik: 'БИК',
  accountNo: 'Сч. №',
  recipient: 'Получатель',
  supplier: 'Поставщик (Исполнитель)',
  buyer: 'Покупатель (Заказчик)',
  invoiceLine: (service: string) => `Пополнение баланса (предоплата за доступ к API ${service})`,
  goodsColumn: 'Товары (работы, услуги)',
  noVat: 'Без НДС',
  vatIncluded: (rate: number, sum: string) => `В том числе НДС ${rate}%: ${sum}`,
  purposeNoVat: 'Без НДС',
  purposeVat: (rate: number, sum: string) => `В т.ч. НДС ${rate}% — ${sum} руб.`,
  purpose: (number: number, day: string, service: string, vat: string) => `Оплата по счёту № ${number} от ${day} за доступ к API ${service}. ${vat}`,
  validUntil: (day: string) => `Счёт действителен до ${day} включительно. Деньги зачисляются на баланс учётной записи, когда поступят на расчётный счёт поставщика.`,
  paidMark: (day: string) => `Оплачен ${day}`,
  cancelledMark: 'Счёт отменён: не оплачивайте его, выставьте новый',
  invoiceAccountant: 'Бухгалтер',
  grandTotal: 'Всего к оплате',
  invoiceSummary: (count: number, sum: string) => `Всего наименований ${count}, на сумму ${sum}`,
  paymentPurpose: (purpose: string) => `Назначение платежа (укажите в платёжном поручении без изменений): «${purpose}»`,
  director: 'Руководитель',
  accountant: 'Главный бухгалтер',
  stamp: 'М.П.',
  signatureLine: (role: string, name: string) => `${role} ______________ / ${name || '______________'} /`,
  // The акт.
  actTitle: (number: string, date: string) => `Акт № ${number} от ${date}`,
  actSubtitle: (month: string) => `об оказании услуг за ${month}`,
  currentMonth: (asOf: string) => `Месяц ещё не закончился: документ составлен по операциям на ${asOf} и не окончательный`,
  period: (from: string, to: string) => `Период: ${from} — ${to}`,
  executor: 'Исполнитель',
  customer: 'Заказчик',
  actLine: (service: string, month: string, requests: string) => `${service}, ${month} (${requests})`,
  actSummary: (count: number, sum: string) => `Всего оказано услуг ${count}, на сумму ${sum}`,
  actNote: 'Вышеперечисленные услуги оказаны полностью и в срок. Заказчик претензий по объёму, качеству и срокам оказания услуг не имеет.',
  noActLines: 'Услуг за месяц не оказано.',
  // Both.
  columns: { n: '№', name: 'Наименование', service: 'Наименование работ, услуг', quantity: 'Кол-во', unit: 'Ед.', price: 'Цена', amount: 'Сумма' },
  serviceUnit: 'усл.',
  total: 'Итого',
  /** «e‑mail» with a no-break hyphen: a line never breaks inside it. */
  email: 'e\u2011mail',
  accountOwner: (email: string) => `Владелец учётной записи с e\u2011mail ${email}`,
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
  referral: 'за приглашённого',
  promo: 'промокод',
};

/** The issued closing documents (closing-documents.ts, act-pdf.ts, upd-pdf.ts): messages and fixed wording. */
export const closingTexts = {
  requisitesMissing: statementMessages.requisitesMissing,
  documentNotFound: 'Документ не найден',
  alreadySuperseded: 'Этот документ уже заменён исправленным: исправлять можно только действующий',
  notIssuedYet: (month: string) =>
    `Акт за ${month} ещё не выпущен: закрывающие документы выпускаются после окончания месяца (по московскому времени), ` +
    'список выпущенных — GET /api/account/documents',
  monthNotEnded: 'Месяц ещё не закончился (по московскому времени): документы за него выпускаются после его окончания',
  kinds: { act: 'Акт', upd: 'УПД' } as Record<string, string>,
  statuses: { issued: 'действует', superseded: 'заменён исправленным' } as Record<string, string>,
  // The акт.
  actTitle: (number: number, date: string) => `Акт № ${number} от ${date}`,
  actNote: 'Вышеперечисленные услуги выполнены полностью и в срок. Заказчик претензий по объёму, качеству и срокам оказания услуг не имеет.',
  correctionOf: (kind: string, number: number, date: string) => `Исправленный документ: выпущен взамен документа «${kind} № ${number} от ${date}»`,
  vatLine: (rate: number, amount: string) => `В том числе НДС ${rate}%: ${amount}`,
  noVat: 'Без НДС',
  /** In the УПД's rate and tax columns. */
  noVatCell: 'без НДС',
  ogrn: 'ОГРН',
  bankDetails: (account: string, bank: string, bik: string, correspondent: string) =>
    [[account ? `р/с ${account}` : '', bank ? `в ${bank}` : ''].filter(Boolean).join(' '), bik ? `БИК ${bik}` : '', correspondent ? `к/с ${correspondent}` : '']
      .filter(Boolean)
      .join(', '),
  // The УПД.
  updTitle: 'Универсальный передаточный документ',
  updStatus: 'Статус:',
  updStatusHint: '1 — счёт-фактура и передаточный (первичный) документ (акт); 2 — передаточный (первичный) документ (акт)',
  invoiceFactura: (number: number, date: string) => `Счёт-фактура № ${number} от ${date}`,
  correctionNo: 'Исправление № —',
  correctionOfUpd: (number: number, date: string) => `Исправление к документу № ${number} от ${date}`,
  seller: 'Продавец',
  sellerAddress: 'Адрес',
  sellerInnKpp: 'ИНН/КПП продавца',
  buyer: 'Покупатель',
  buyerAddress: 'Адрес',
  buyerInnKpp: 'ИНН/КПП покупателя',
  shipper: 'Грузоотправитель и его адрес',
  consignee: 'Грузополучатель и его адрес',
  notApplicable: '—',
  paymentDoc: 'К платёжно-расчётному документу',
  paymentDocValue: '№ — от —',
  currencyLine: 'Валюта: наименование, код',
  currencyRub: 'Российский рубль, 643',
  updColumns: {
    n: '№ п/п',
    code: 'Код товара/ работ, услуг',
    name: 'Наименование товара (описание выполненных работ, оказанных услуг)',
    unitCode: 'Ед. изм. код',
    unit: 'Ед. изм. условное обозначение',
    quantity: 'Коли- чество (объём)',
    price: 'Цена (тариф) за единицу измерения',
    costWithoutVat: 'Стоимость товаров (работ, услуг) без налога — всего',
    excise: 'В том числе сумма акциза',
    rate: 'Налоговая ставка',
    vat: 'Сумма налога, предъявляемая покупателю',
    costWithVat: 'Стоимость товаров (работ, услуг) с налогом — всего',
  },
  /** ОКЕИ 876 «условная единица» («усл. ед.»): the unit services are counted in. */
  unitCode: '876',
  unitName: 'усл. ед.',
  noExcise: 'без акциза',
  updTotal: 'Всего к оплате',
  updSigned: 'Документ составлен на',
  sheets: '1 листе',
  head: 'Руководитель организации или иное уполномоченное лицо',
  chiefAccountant: 'Главный бухгалтер или иное уполномоченное лицо',
  transferred: 'Товар (груз) передал / услуги, результаты работ, права сдал',
  received: 'Товар (груз) получил / услуги, результаты работ, права принял',
  basis: 'Основание передачи (сдачи) / получения (приёмки)',
  basisText: (month: string) => `Оказание услуг за ${month}`,
  dateOfTransfer: (date: string) => `Дата отгрузки, передачи (сдачи): ${date}`,
  dateOfReceipt: 'Дата получения (приёмки): «___» ____________ 20__ г.',
  signLine: (name: string) => `______________ / ${name || '______________'} /`,
  /** The registry CSV's column headers. */
  registryHeaders: ['Номер', 'Дата', 'Вид', 'Заказчик', 'ИНН', 'КПП', 'Сумма', 'НДС', 'Статус', 'Исправляет'],
};
