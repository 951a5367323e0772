// Everything the assistant says to clients in the community, in one place (house rule 9).
import type { AgentType } from '../agents';

const greetingByType: Record<AgentType, string> = {
  creator: 'Я отвечу на вопросы и помогу разобраться.',
  service: 'Я помогу выбрать специалиста и записаться на удобное время.',
  ecommerce: 'Я помогу выбрать товар, собрать корзину и оформить заказ.',
};

const helpByType: Record<AgentType, string> = {
  creator: 'Просто напишите вопрос — я отвечу.',
  service: '«Записаться» — выбрать услугу, специалиста и время; «Специалисты» — кто у нас работает; «Мои записи» — ваши предстоящие визиты.',
  ecommerce: '«Каталог» — товары; «Корзина» — то, что вы выбрали, и оформление заказа.',
};

export const assistantTexts = {
  welcome: (agentName: string, type: AgentType) => `Здравствуйте! Это ${agentName}. ${greetingByType[type]}\nНапишите «Меню», чтобы увидеть, что я умею.`,
  menu: 'Выберите, что вас интересует:',
  help: (type: AgentType) =>
    ['Что я умею:', helpByType[type], '«Меню» — главное меню, «Помощь» — эта подсказка.', 'Если нужен живой человек, напишите «оператор».'].join('\n'),

  // Buttons.
  buttonMenu: 'Главное меню',
  // What the welcome tells clients to type for the menu: typed, it acts as the menu button.
  typedMenu: 'Меню',
  buttonHelp: 'Помощь',
  buttonCatalog: 'Каталог',
  buttonCart: 'Корзина',
  buttonBook: 'Записаться',
  buttonSpecialists: 'Специалисты',
  snackbarDone: 'Готово',

  // Model answers.
  modelUnavailable: 'Извините, я не смог ответить прямо сейчас. Попробуйте, пожалуйста, ещё раз чуть позже.',
  // The model used up ASSISTANT_MAX_STEPS calls on tools without answering.
  stepsExhausted: 'Извините, я не смог сразу разобраться с вашим вопросом. Попробуйте, пожалуйста, написать его иначе или чуть позже.',
  stepsExhaustedEscalated: 'Извините, я не смог сразу разобраться с вашим вопросом. Я передал его сотруднику — он ответит здесь же.',
  stepsExhaustedEscalatedClosed: (when: string) =>
    `Извините, я не смог сразу разобраться с вашим вопросом. Я передал его сотруднику. Сейчас нерабочее время — он ответит здесь же ${when}.`,
  escalationReasonSteps: 'ассистент не справился с вопросом за отведённое число шагов',
  // The model (or its upstream) failed twice in a row within one turn, and a person can be reached.
  modelFailedEscalated: 'Извините, я не смог ответить прямо сейчас. Я передал ваш вопрос сотруднику — он ответит здесь же.',
  modelFailedEscalatedClosed: (when: string) =>
    `Извините, я не смог ответить прямо сейчас. Я передал ваш вопрос сотруднику. Сейчас нерабочее время — он ответит здесь же ${when}.`,
  escalationReasonModelFailed: 'модель ассистента не ответила два раза подряд',
  // The owner's account is blocked: said once per dialogue, then the assistant stays silent.
  assistantUnavailable: 'Ассистент сейчас недоступен. Пожалуйста, попробуйте позже.',

  // What the client sent besides text.
  voiceNotHeard: 'Не расслышал, напишите, пожалуйста, текстом.',
  imagesOff: 'К сожалению, я не могу посмотреть фото. Опишите, пожалуйста, словами, что на нём, — я постараюсь помочь.',
  stickerReply: 'Спасибо! 😊 Напишите, чем я могу помочь.',
  // How such a message stands in the dialogue's transcript (the owner's inbox, the model's history).
  turnPhoto: '[фото]',
  turnVoice: '[голосовое сообщение]',
  turnSticker: '[стикер]',
  // A callback button pressed on a keyboard no longer known (its label is not recorded anywhere).
  tapUnknown: '[нажата кнопка]',

  // Escalation.
  askPhone: 'Чтобы сотрудник мог с вами связаться, напишите, пожалуйста, ваш номер телефона.',
  phoneNotUnderstood: 'Не получилось разобрать номер. Напишите его, например, так: +7 916 123-45-67.',
  escalated: 'Спасибо! Я передал ваш вопрос сотруднику, он скоро ответит здесь же.',
  withOperator: 'Ваш вопрос уже у сотрудника, он ответит здесь же.',
  released: 'Сотрудник завершил разговор. Если появятся вопросы — пишите, я на связи.',
  // Nobody parked (handoff.ts, agents/working-hours.ts): what the client is told of a person and when one answers.
  // `when` is what whenOpens() gives: «сегодня с 10:00», «завтра с 10:00», «в понедельник с 10:00».
  escalatedUnreachable: 'Спасибо! Я передал ваш вопрос сотруднику. Он ответит здесь же в рабочее время.',
  escalatedUntil: (until: string) => `Спасибо! Я передал ваш вопрос сотруднику. Он ответит здесь же в рабочее время — сегодня до ${until}.`,
  escalatedClosed: (when: string) => `Спасибо! Я передал ваш вопрос сотруднику. Сейчас нерабочее время — он ответит здесь же ${when}.`,
  withOperatorUnreachable: 'Ваш вопрос уже у сотрудника, он ответит здесь же в рабочее время.',
  withOperatorClosed: (when: string) => `Ваш вопрос уже у сотрудника. Сейчас нерабочее время — он ответит здесь же ${when}.`,
  handoffTimedOut: 'Извините, сотрудник пока не смог ответить. Я снова на связи: напишите, чем помочь, а если нужен человек — напишите «оператор».',
  // The owner's balance cannot pay the model: said once per dialogue and spell; the dialogue stays with the bot.
  outOfBalanceNotice: 'Извините, ассистент временно недоступен. Пожалуйста, напишите чуть позже.',
  // More messages a minute than ASSISTANT_CLIENT_MESSAGES_PER_MINUTE: said once a minute, the rest kept unanswered.
  tooManyMessages: 'Вы пишете быстрее, чем я успеваю читать. Подождите, пожалуйста, минуту и напишите главное одним сообщением.',
  // Told to the operator when a reply cannot reach the client.
  relayNoDialogue: 'диалог с клиентом не найден',
  relayDenied: 'клиент запретил сообщения от сообщества',
  relayNoCommunity: 'сообщество ВКонтакте у агента не подключено',
  escalationReasonAsked: 'клиент попросил связать его с человеком',
  escalationReasonModel: (why: string) => `ассистент не смог ответить: ${why}`,

  // Booking.
  bookingUnavailable: 'Онлайн-запись пока не подключена. Напишите, пожалуйста, «оператор» — вас запишет сотрудник.',
  bookingFailed: 'Не получилось связаться с системой записи. Попробуйте, пожалуйста, позже.',
  noSpecialists: 'Сейчас нет специалистов, к которым можно записаться онлайн.',
  specialistsList: (lines: string[]) => ['Наши специалисты:', ...lines].join('\n'),
  chooseSpecialist: 'К кому хотите записаться?',
  chooseService: (specialist: string) => `Какая услуга нужна? Специалист: ${specialist}.`,
  noServices: 'У этого специалиста сейчас нет услуг для онлайн-записи.',
  chooseSlot: (specialist: string, service: string) => `Свободное время — ${service}, ${specialist}:`,
  noSlots: 'В ближайшие дни свободного времени нет. Напишите «оператор», и сотрудник подберёт время.',
  slotTaken: 'Это время только что заняли. Выберите, пожалуйста, другое:',
  slotPassed: 'Это время уже прошло. Выберите, пожалуйста, другое:',
  booked: (details: { service: string; specialist: string; when: string; name: string }) =>
    `Готово, ${details.name}! Вы записаны: ${details.service}, ${details.specialist}, ${details.when}.`,
  // Said by the system when the model's tool cancelled a visit (the model's words follow, if any).
  bookingCanceled: (details: { service: string; specialist: string; when: string }) => `Запись отменена: ${details.service}, ${details.specialist}, ${details.when}.`,

  // E-commerce.
  catalogUnavailable: 'Каталог пока не заполнен. Напишите, что вы ищете, — я подскажу.',
  catalogPage: (lines: string[], page: number) => [`Каталог${page > 0 ? ` (стр. ${page + 1})` : ''}:`, ...lines].join('\n'),
  catalogLine: (n: number, title: string, price: string, description: string, inStock = true) =>
    `${n}. ${title} — ${price}${inStock ? '' : ' (нет в наличии)'}${description ? `\n   ${description.length > 120 ? `${description.slice(0, 119)}…` : description}` : ''}`,
  buttonPrev: '◀ Назад',
  buttonNext: 'Дальше ▶',
  buttonClear: 'Очистить',
  buttonCheckout: 'Оформить заказ',
  added: (title: string, count: number) => `Добавлено: ${title}. Товаров в корзине: ${count}.`,
  cartEmpty: 'Корзина пуста. Загляните в каталог.',
  cartCleared: 'Корзина очищена.',
  cartContents: (lines: string[], total: string) => ['Ваша корзина:', ...lines, `Итого: ${total}`].join('\n'),
  cartLine: (title: string, quantity: number, sum: string, available: boolean) =>
    `• ${title} × ${quantity} — ${sum}${available ? '' : ' (нет в наличии, в заказ не войдёт)'}`,
  nothingToOrder: 'В корзине нет товаров, которые можно заказать.',
  paymentsUnavailable: 'Оформление заказов пока не подключено. Напишите «оператор» — сотрудник поможет.',
  /** `delivery`: the delivery's lines (shop-flow.ts deliveryLines), shown between the sum and the link. */
  orderCreated: (number: string, total: string, link: string, delivery: readonly string[] = []) =>
    [`Заказ ${number} оформлен. Сумма: ${total}.`, ...delivery, `Оплатить: ${link}`, 'После оплаты я пришлю подтверждение.'].join('\n'),
  // The link button under an order placed by the model's checkout.
  buttonPay: 'Оплатить',
  orderPaid: (number: string) => `Оплата заказа ${number} получена. Спасибо! Мы свяжемся с вами, когда заказ будет готов.`,
  // The owner moved the order on (commerce/order-status.ts).
  orderShipped: (number: string, tracking: string) => `Заказ ${number} отправлен. Трек-номер для отслеживания: ${tracking}.`,
  orderDelivered: (number: string) => `Заказ ${number} доставлен. Спасибо за покупку! Будем рады видеть вас снова.`,
  orderCancelled: (number: string, reason: string) => `Заказ ${number} отменён. Причина: ${reason}. Если остались вопросы — напишите нам.`,
  /** The unpaid order's reminder (commerce/order-reminders.ts). */
  orderUnpaidReminder: (number: string, total: string, link: string) =>
    `Напоминаем: заказ ${number} на ${total} ещё не оплачен.\nОплатить: ${link}\nЕсли передумали — просто не оплачивайте, заказ не будет отправлен.`,
} as const;

const WEEKDAYS_ON = ['', 'в понедельник', 'во вторник', 'в среду', 'в четверг', 'в пятницу', 'в субботу', 'в воскресенье'];

/** «сегодня с 10:00», «завтра с 10:00», «в понедельник с 10:00»: when the next working day starts. */
export function whenOpens(day: 'today' | 'tomorrow' | number, time: string): string {
  const on = day === 'today' ? 'сегодня' : day === 'tomorrow' ? 'завтра' : (WEEKDAYS_ON[day] ?? '');
  return `${on} с ${time}`;
}

const MONTHS = ['января', 'февраля', 'марта', 'апреля', 'мая', 'июня', 'июля', 'августа', 'сентября', 'октября', 'ноября', 'декабря'];

/** "1 декабря, 10:00" from "2026-12-01T10:00:00+03:00", in the company's own local time. */
export function formatSlot(datetime: string): string {
  const [date = '', time = ''] = datetime.split('T');
  const [, month = '1', day = '1'] = date.split('-');
  return `${Number(day)} ${MONTHS[Number(month) - 1] ?? ''}, ${time.slice(0, 5)}`;
}

/** "1 дек 10:00": short enough for a button label. */
export function formatSlotShort(datetime: string): string {
  const [date = '', time = ''] = datetime.split('T');
  const [, month = '1', day = '1'] = date.split('-');
  return `${Number(day)} ${(MONTHS[Number(month) - 1] ?? '').slice(0, 3)} ${time.slice(0, 5)}`;
}
