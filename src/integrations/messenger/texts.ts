// Russian texts the messenger bot sends (notifications and answers to the operator). Plain text, no
// parse_mode: names, phones and reasons come from clients and need no escaping that way.

export interface EscalationText {
  agentName: string;
  clientPhone: string | null;
  reason: string;
}

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
} as const;
