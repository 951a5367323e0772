// The «Диалоги» section's Russian labels.
import type { Outputs } from '../app/api';

export type DialogueItem = Outputs['dialogues']['list']['dialogues'][number];
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
};

/** The client as the owner recognises them: the name they gave, else their VK id. */
export function clientLabel(client: DialogueItem['client']): string {
  if (client.name) return client.name;
  return client.vkUserId !== null ? `Пользователь VK ${client.vkUserId}` : 'Клиент';
}

export const inboxTexts = {
  title: 'Диалоги',
  back: '← К агенту',
  empty: 'Диалогов пока нет: они появятся, когда клиенты напишут сообществу.',
  nothingFound: 'Ничего не найдено',
  search: 'Поиск',
  searchHint: 'Текст сообщения, имя, телефон или VK id',
  state: 'Состояние',
  choose: 'Выберите диалог слева, чтобы открыть переписку.',
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
  send: 'Отправить',
  sending: 'Отправка…',
  earlier: 'Показать ранее',
  noTurns: 'В переписке пока нет сообщений.',
  delete: 'Удалить диалог',
  deleteTitle: 'Удалить диалог клиента?',
  deleteText: 'Переписка, эскалации и события этого клиента будут удалены без возможности восстановления (например, по просьбе клиента).',
  tokens: (prompt: number, completion: number) => `${prompt} + ${completion} токенов`,
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

/** Russian plural: one, few, many («1 диалог», «2 диалога», «5 диалогов»). */
function plural(n: number, one: string, few: string, many: string): string {
  const tens = n % 100;
  const units = n % 10;
  if (tens >= 11 && tens <= 14) return many;
  if (units === 1) return one;
  if (units >= 2 && units <= 4) return few;
  return many;
}

export const inboxHomeTexts = {
  title: 'Диалоги',
  choose: 'Выберите агента',
  noAgents: 'Диалоги появятся, когда у вас будет агент с подключённым сообществом ВКонтакте и клиенты ему напишут.',
  toAgents: 'Создать агента',
  nothingNew: 'нового нет',
  unread: (n: number) => `${n} ${plural(n, 'непрочитанное', 'непрочитанных', 'непрочитанных')}`,
  waiting: (n: number) => `${n} ${plural(n, 'ждёт', 'ждут', 'ждут')} оператора`,
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
