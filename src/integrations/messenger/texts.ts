// Russian texts the messenger bot sends (notifications and answers to the operator). Plain text, no
// parse_mode: names, phones and reasons come from clients and need no escaping that way.
import { pluralForm } from '../../money-words';

export interface EscalationText {
  agentName: string;
  clientPhone: string | null;
  reason: string;
}

/** A client who waited overnight, as the morning summary lists them. */
export interface WaitingClient {
  clientPhone: string | null;
  /** The client's first words of this request (cut short), or null when none were written. */
  firstWords: string | null;
  reason: string;
  /** How long the client has waited, in whole minutes. */
  waitedMinutes: number;
  /** The dialogue's page in the dashboard. */
  link: string;
}

/** «11 ч 5 мин», «40 мин». */
function waited(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} мин`;
  return rest === 0 ? `${hours} ч` : `${hours} ч ${rest} мин`;
}

/** The most clients one morning message lists by name; the rest are counted («и ещё 3»). */
export const MORNING_LIST_MAX = 10;

export interface PaymentText {
  agentName: string;
  orderNumber: string;
  /** Already formatted with its currency, e.g. "1 500,00 ₽". */
  amount: string;
}

export const messengerTexts = {
  escalation: ({ agentName, clientPhone, reason }: EscalationText) =>
    [
      '🔔 Нужен оператор',
      `Агент: ${agentName}`,
      `Телефон клиента: ${clientPhone ?? 'не указан'}`,
      `Причина: ${reason}`,
      '',
      'Ответьте на это сообщение — ответ уйдёт клиенту. Ответ /release вернёт диалог ассистенту.',
    ].join('\n'),
  // Under a notice sent without a sound outside working hours.
  escalationQuiet: 'Пришло в нерабочее время, поэтому без звука. Утром, к началу рабочего дня, пришлю список клиентов, которые ждут ответа.',

  // The start of the working day: the clients handed over while nobody was at work and still waiting.
  morning: {
    title: (agentName: string, count: number) =>
      `☀️ Доброе утро! Пока вы не работали, ${count} ${pluralForm(BigInt(count), ['клиент', 'клиента', 'клиентов'])} ${count === 1 ? 'ждёт' : 'ждут'} ответа сотрудника — «${agentName}»:`,
    item: (n: number, c: WaitingClient) =>
      [`${n}. Телефон: ${c.clientPhone ?? 'не указан'} · ждёт ${waited(c.waitedMinutes)}`, c.firstWords ? `«${c.firstWords}»` : `Причина: ${c.reason}`, c.link].join(
        '\n',
      ),
    more: (count: number) => `…и ещё ${count}.`,
    answer: 'Ответьте на ночное уведомление о клиенте — ответ уйдёт ему — или в панели управления по ссылке.',
    mailSubject: (agentName: string, count: number) => `Утром ответа ждут ${count} ${pluralForm(BigInt(count), ['клиент', 'клиента', 'клиентов'])} — «${agentName}»`,
    mailHello: 'Здравствуйте!',
    mailAnswer: 'Ответить клиентам можно в панели управления по ссылкам выше: в диалогах агента ждущие дольше всех — сверху.',
  },

  payment: ({ agentName, orderNumber, amount }: PaymentText) =>
    ['💳 Оплата подтверждена', `Агент: ${agentName}`, `Заказ: ${orderNumber}`, `Сумма: ${amount}`].join('\n'),

  startPrivate: (chatId: number) =>
    [
      `ID этого чата: ${chatId}`,
      // The field as the owner sees it on the agent's page, and its name in the API.
      `Укажите его в настройках мессенджера агента, в поле «ID пользователя для уведомлений» (в API — userId): сюда будут приходить эскалации и уведомления об оплате.`,
    ].join('\n'),

  startChannel: (chatId: number) =>
    `ID этого чата: ${chatId}. Чтобы дублировать уведомления сюда, укажите его в настройках мессенджера агента, в поле «Канал» (в API — channelId).`,

  replyRelayed: 'Ответ отправлен клиенту.',
  replyUndeliverable: (why: string) => `Ответ сохранён, но не доставлен клиенту: ${why}`,
  noRelay: 'канал клиента не подключён к сервису',
  alreadyReleased: 'Диалог уже возвращён ассистенту; ответ клиенту не отправлен.',
  released: 'Диалог возвращён ассистенту.',
  releasedBefore: 'Диалог уже был возвращён ассистенту.',
  heldByOther: (name: string | null) => `Диалог уже ведёт ${name ?? 'другой оператор'}; ответ клиенту не отправлен.`,
  telegramOperator: 'оператор в Telegram',
  takenInDashboard: (name: string) => `✋ Диалог ведёт ${name} из панели управления: клиенту ответят оттуда.`,
  releasedInDashboard: 'Диалог возвращён ассистенту из панели управления.',

  // A client handed to a person nobody answered: the dialogue went back to the assistant.
  handoffTimedOut: (minutes: number) =>
    `⌛ Клиенту никто не ответил за ${minutes} мин — диалог возвращён ассистенту, клиенту сказано, что можно снова позвать сотрудника.`,

  // The owner's balance cannot pay the assistant's model (once per such spell).
  outOfBalance: (agentName: string, topupUrl: string) =>
    [
      '⚠️ Ассистент не отвечает клиентам',
      `Агент: ${agentName}`,
      'На балансе недостаточно средств для ответов модели. Клиентам сказано, что ассистент временно недоступен; после пополнения он снова будет отвечать.',
      `Пополнить баланс: ${topupUrl}`,
    ].join('\n'),
  outOfBalanceMail: {
    subject: (agentName: string) => `Ассистент «${agentName}» не отвечает клиентам: закончились средства`,
    lines: (agentName: string, topupUrl: string) => [
      ['Здравствуйте!'],
      [`Ассистент «${agentName}» не может отвечать клиентам: на балансе недостаточно средств для ответов модели.`],
      ['Клиентам, которые пишут сейчас, сказано, что ассистент временно недоступен. Диалоги остаются у ассистента: после пополнения он снова будет отвечать.'],
      ['Пополнить баланс:', topupUrl],
    ],
  },

  // A client handed to a person when the agent has no Telegram bot: the owner hears it by mail.
  escalationMail: {
    subject: (agentName: string) => `Клиент ждёт ответа сотрудника — «${agentName}»`,
    lines: ({ agentName, clientPhone, reason }: EscalationText, dialoguesUrl: string) => [
      ['Здравствуйте!'],
      [`Ассистент «${agentName}» передал клиента сотруднику.`, `Телефон клиента: ${clientPhone ?? 'не указан'}`, `Причина: ${reason}`],
      ['Ответить клиенту можно в панели управления, в диалогах агента:', dialoguesUrl],
      ['Чтобы получать такие вызовы сразу, подключите к агенту бота Telegram.'],
    ],
  },
} as const;

/** The API's messages about the messenger: its settings (bot token, chat ids) and its webhook. */
export const messengerMessages = {
  messengerBotTokenFormat: 'Неверный формат токена бота: ожидается <id бота>:<секрет>, как его выдаёт @BotFather',
  messengerBotTokenRequired: 'Токен бота: укажите токен, выданный @BotFather',
  messengerBotTokenRejected: 'Telegram не принял токен бота: проверьте его в @BotFather',
  messengerUserIdInvalid: 'ожидается числовой идентификатор чата Telegram (бот подскажет его в ответ на /start)',
  messengerChannelIdInvalid: 'ожидается имя канала, начинающееся с @ (5–32 символа: латиница, цифры, _), или числовой идентификатор',
  messengerTelegramUnavailable: 'Telegram недоступен или не ответил вовремя, повторите позже',
  messengerWebhookRejected: (detail: string) => `Telegram не принял адрес вебхука: ${detail}`,
  messengerBadSecret: 'Неверный секрет вебхука',
  messengerUnknownWebhook: 'Вебхук для этого агента не настроен',
  messengerBadUpdate: 'Ожидается объект Update Telegram с целым update_id',
  messengerNotConfiguredRelay: 'Мессенджер агента не настроен',
} as const;
