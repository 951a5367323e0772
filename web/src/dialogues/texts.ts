// The «Диалоги» section's Russian labels.
import type { Outputs } from '../app/api';

export type DialogueItem = Outputs['dialogues']['list']['dialogues'][number];
export type InboxItem = Outputs['dialogues']['inbox']['dialogues'][number];
export type QuickReply = Outputs['dialogues']['quickReplies']['quickReplies'][number];
export type Turn = Outputs['dialogues']['messages']['messages'][number];
export type DialogueState = DialogueItem['state'];

export const stateLabels: Record<DialogueState, string> = {
  bot: 'Отвечает ассистент',
  escalated: 'Ждёт оператора',
  operator: 'У оператора',
  closed: 'Закрыт клиентом',
};

export const stateFilterLabels: Record<DialogueState | '', string> = {
  '': 'Все',
  bot: 'Ассистент',
  escalated: 'Ждут оператора',
  operator: 'У оператора',
  closed: 'Закрытые',
};

export const authorLabels: Record<Turn['author'], string> = {
  client: 'Клиент',
  assistant: 'Ассистент',
  operator: 'Оператор',
  tool: 'Инструмент',
  note: 'Заметка',
};

/** The client as the owner recognises them: the name they gave, else their VK id. */
export function clientLabel(client: DialogueItem['client']): string {
  if (client.name) return client.name;
  return client.vkUserId !== null ? `Пользователь VK ${client.vkUserId}` : 'Клиент';
}

/** «ждёт 12 мин», «ждёт 2 ч 5 мин», «ждёт 3 дн.»: how long a client has waited for a person. */
export function waitingFor(sinceIso: string, now: number): string {
  const minutes = Math.max(0, Math.floor((now - new Date(sinceIso).getTime()) / 60_000));
  if (minutes < 1) return 'ждёт меньше минуты';
  if (minutes < 60) return `ждёт ${minutes} мин`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `ждёт ${hours} ч ${minutes % 60} мин` : `ждёт ${hours} ч`;
  return `ждёт ${Math.floor(hours / 24)} дн.`;
}

export const inboxTexts = {
  title: 'Диалоги',
  agent: 'Агент',
  allAgents: 'Все агенты',
  waitingTitle: 'Ждут человека',
  othersTitle: 'Остальные диалоги',
  back: '← К агенту',
  empty: 'Диалогов пока нет: они появятся, когда клиенты напишут сообществу.',
  nothingFound: 'Ничего не найдено',
  search: 'Поиск',
  searchHint: 'Текст сообщения, имя, телефон или VK id',
  state: 'Состояние',
  choose: 'Выберите диалог слева, чтобы открыть переписку.',
  noAgents: 'Диалоги появятся, когда у вас будет агент с подключённым сообществом ВКонтакте и клиенты ему напишут.',
  toAgents: 'Создать агента',
  live: 'Список и переписка обновляются сами каждые 1,5 секунды.',
  toList: '← Все диалоги',
  unread: (n: number) => `${n} непрочит.`,
  takeover: 'Перехватить',
  release: 'Вернуть ассистенту',
  heldByYou: 'Диалог ведёте вы: ассистент молчит.',
  heldBy: (name: string) => `Диалог ведёт ${name}.`,
  escalatedHint: 'Клиент ждёт оператора. Перехватите диалог или просто ответьте.',
  closedHint: 'Клиент запретил сообщения от сообщества: ответить нельзя.',
  reply: 'Ответ клиенту',
  replyHint: 'Уйдёт клиенту во ВКонтакте от имени сообщества; диалог перейдёт к вам.',
  note: 'Заметка',
  noteLabel: 'Заметка для себя и коллег',
  noteHint: 'Клиент её не видит и ассистент её не читает: она останется только в переписке здесь.',
  noteMark: 'Заметка — клиент её не видит',
  addNote: 'Сохранить заметку',
  replyMode: 'Что пишете',
  send: 'Отправить',
  sending: 'Отправка…',
  earlier: 'Показать ранее',
  noTurns: 'В переписке пока нет сообщений.',
  more: 'Ещё действия',
  releaseTitle: 'Вернуть диалог ассистенту?',
  releaseConfirm: 'Вернуть',
  releaseSend: 'Вернуть и отправить',
  releaseWillSend: 'Клиент получит это сообщение:',
  releaseSilent: 'Клиенту ничего не отправится: ассистент ответит на его следующее сообщение.',
  releaseAfter: 'Дальше на сообщения клиента снова отвечает ассистент.',
  delete: 'Удалить диалог',
  deleteTitle: 'Удалить диалог клиента?',
  deleteText: 'Переписка, эскалации и события этого клиента будут удалены без возможности восстановления (например, по просьбе клиента).',
  tokens: (prompt: number, completion: number) => `${prompt} + ${completion} токенов`,
  cachedTokens: (n: number) => `из них ${n} из кэша`,
  reasoningTokens: (n: number) => `рассуждения ${n}`,
  phone: 'Телефон',
  tapped: 'Нажата кнопка',
  unsent: 'Не отправлено: диалог перехватил сотрудник, пока ассистент готовил ответ',
  buttonsShown: 'Кнопки под сообщением',
  turnsLabel: 'Сообщения',
  newTurns: (n: number) => `Новые сообщения (${n}) ↓`,
};

export const resultsTexts = {
  title: 'Итоги агента',
  open: 'Открыть диалоги',
  period: 'Период',
  periods: { 7: '7 дней', 30: '30 дней', 90: '90 дней' } as Record<number, string>,
  dialogues: 'Диалоги',
  messages: 'Сообщения',
  fromClients: (n: number) => `от клиентов: ${n}`,
  escalations: 'Эскалации',
  bookings: 'Записи',
  bookingsBy: (model: number, buttons: number) => `моделью: ${model}, кнопками: ${buttons}`,
  orders: 'Заказы',
  ordersByModel: (n: number) => `оформлено ассистентом: ${n}`,
  paid: 'Оплачено',
  spend: 'Расходы на модель',
  requests: (n: number) => `запросов: ${n}`,
  none: '—',
  bookingsList: 'Последние записи',
  ordersList: 'Последние заказы',
  client: 'Клиент',
  service: 'Услуга',
  specialist: 'Специалист',
  when: 'Когда',
  source: 'Кто оформил',
  order: 'Заказ',
  items: 'Товары',
  total: 'Сумма',
  status: 'Статус',
  bookingSources: { api: 'API', button: 'кнопки диалога', model: 'ассистент (модель)' } as Partial<Record<string, string>>,
  orderSources: { buttons: 'кнопки магазина', model: 'ассистент (модель)' } as Partial<Record<string, string>>,
  orderStatuses: { pending: 'ждёт оплаты', paid: 'оплачен', cancelled: 'отменён' } as Partial<Record<string, string>>,
};

/** The funnel on the agent's results: steps by the agent's type, each with its conversion from the one before. */
export const funnelTexts = {
  title: 'Воронка по неделям',
  hint: 'Клиенты считаются в неделе своего первого сообщения; у каждого шага — доля от предыдущего.',
  visitsHint: 'Визит — запись не отменена, её время прошло и салон не отметил, что клиент не пришёл. Отзыв — клиент оценил визит после него.',
  averageScore: 'Средняя оценка',
  scoreOf: (score: number | null | undefined) => (score === null || score === undefined ? '—' : score.toLocaleString('ru-RU', { maximumFractionDigits: 1 })),
  week: 'Неделя',
  total: 'Всего',
  weekOf: (monday: string) => {
    const [y, m, d] = monday.split('-');
    return `с ${d}.${m}.${y}`;
  },
  steps: {
    dialogues: 'Диалоги',
    bookings: 'Записи',
    visits: 'Визиты',
    reviews: 'Отзывы',
    orders: 'Заказы',
    payments: 'Оплаты',
  } as Record<string, string>,
  conversion: (percent: string) => `${percent} от предыдущего шага`,
};

/** Russian plural: one, few, many («1 диалог», «2 диалога», «5 диалогов»). */
function plural(n: number, one: string, few: string, many: string): string {
  const tens = n % 100;
  const units = n % 10;
  if (tens >= 11 && tens <= 14) return many;
  if (units === 1) return one;
  if (units >= 2 && units <= 4) return few;
  return many;
}

/** The main menu's badges on «Диалоги». */
export const inboxHomeTexts = {
  waitingShort: (n: number) => `${n} ${plural(n, 'ждёт', 'ждут', 'ждут')}`,
  spoken: (unread: number, waiting: number) =>
    [
      unread > 0 ? `${unread} ${plural(unread, 'непрочитанное сообщение', 'непрочитанных сообщения', 'непрочитанных сообщений')}` : '',
      waiting > 0 ? `${waiting} ${plural(waiting, 'диалог ждёт', 'диалога ждут', 'диалогов ждут')} оператора` : '',
    ]
      .filter(Boolean)
      .map((part) => `, ${part}`)
      .join(''),
};

export const quickReplyTexts = {
  pick: 'Быстрые ответы',
  pickHint: 'Текст встанет в поле ответа — его можно поправить перед отправкой.',
  none: 'Сохранённых ответов пока нет.',
  manage: 'Изменить список',
  manageTitle: 'Быстрые ответы',
  manageHint: 'Ваши сохранённые ответы: ими можно пользоваться в диалогах любого вашего агента.',
  title: 'Название',
  text: 'Текст',
  add: 'Добавить ответ',
  save: 'Сохранить',
  edit: 'Изменить',
  remove: 'Удалить',
  cancel: 'Отмена',
  close: 'Закрыть',
  removeTitle: (title: string) => `Удалить быстрый ответ «${title}»?`,
  removeText: 'Он пропадёт из списка во всех диалогах. Уже отправленные сообщения останутся.',
};
