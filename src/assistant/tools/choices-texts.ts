// What offer_choices says: its description and arguments (the model reads them), its refusals (the model
// reads them and calls again) and the owner's transcript lines. Russian, like every text of the assistant.

export const choicesTexts = {
  description: (maxChoices: number, maxLabel: number) =>
    [
      `Ответить клиенту текстом с кнопками под ним (до ${maxChoices}). Это и есть ваш ответ: после вызова ход заканчивается, ничего больше не пишите и вызывайте эту функцию последней.`,
      `Каждая кнопка — {label, value}: label — короткая надпись (до ${maxLabel} символов, длиннее обрежется).`,
      'value — что случится при нажатии:',
      '• строка, например «Да» или «Нет, другое время» — как будто клиент написал этот текст; вы получите его как сообщение клиента;',
      '• {serviceId, specialistId, datetime} — свободное время из find_slots (передайте как есть): клиент подтвердит запись кнопкой, имя и телефон спросят, если их нет;',
      '• {serviceId} — услуга из list_services: клиент выберет специалиста и время;',
      '• {productId} — товар из search_products: он добавится в корзину.',
      'Свободное время, найденное find_slots, и так покажется кнопками под вашим следующим ответом; offer_choices нужен, чтобы выбрать, какие варианты показать.',
    ].join('\n'),
  argText: 'Ваш ответ клиенту: текст сообщения над кнопками.',
  argChoices: 'Кнопки: {label, value}.',
  argLabel: 'Надпись на кнопке.',
  argValue: 'Строка (ответ клиента), {serviceId, specialistId, datetime}, {serviceId} или {productId}.',

  badArguments: (where: string) =>
    `Аргументы offer_choices не подходят${where ? ` (${where})` : ''}. Нужно: text — непустой текст; choices — от 1 до 10 кнопок {label, value}; value — строка до 100 символов, {serviceId, specialistId, datetime}, {serviceId} или {productId}.`,
  tooMany: (max: number) => `Кнопок больше ${max}: столько не помещается под сообщением. Оставьте самые подходящие и вызовите снова.`,
  valueTooLong: (n: number) => `Кнопка ${n}: value слишком длинный. Сократите текст ответа до нескольких слов.`,
  idsTooLong: (n: number) => `Кнопка ${n}: идентификаторы слишком длинные для кнопки. Предложите этот вариант текстом.`,
  noBooking: (n: number) => `Кнопка ${n}: кнопки с услугами и временем есть только у салона с подключённым YCLIENTS.`,
  noShop: (n: number) => `Кнопка ${n}: кнопки с товарами есть только у магазина.`,
  unknownService: (n: number, id: string) => `Кнопка ${n}: услуги «${id}» нет. Возьмите serviceId из list_services.`,
  unknownSpecialist: (n: number, id: string) => `Кнопка ${n}: специалиста «${id}» нет или он не оказывает эту услугу. Возьмите specialistId из find_slots.`,
  badDatetime: (n: number) => `Кнопка ${n}: datetime передайте так, как его вернул find_slots, например 2026-12-01T15:00:00+03:00.`,
  notFree: (n: number) => `Кнопка ${n}: это время не свободно. Возьмите время из свежего результата find_slots.`,
  unknownProduct: (n: number, id: string) => `Кнопка ${n}: товара «${id}» нет. Возьмите productId из search_products.`,
  productUnavailable: (n: number) => `Кнопка ${n}: этого товара нет в наличии. Предложите другой.`,
  readFailed: 'Не удалось проверить услуги или товары. Ответьте клиенту текстом без кнопок.',
  slotsNote: (n: number) =>
    `Первые ${n} свободных времени будут показаны клиенту кнопками под вашим следующим ответом: не перечисляйте их все, коротко предложите выбрать. Нажатое время клиент подтвердит сам.`,

  summaryOffered: (labels: string[]) => `кнопки под ответом: ${labels.map((l) => `«${l}»`).join(', ')}`,
  summaryRefused: (message: string) => `кнопки не показаны: ${message.length > 140 ? `${message.slice(0, 139)}…` : message}`,
} as const;
