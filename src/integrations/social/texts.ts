// The VK community's Russian messages: connecting the community and its Callback API webhook.
export const socialMessages = {
  socialNotConfigured: 'Сообщество ВКонтакте не подключено: сохраните настройки агента',
  socialSecretsRequired: 'Укажите ключ доступа сообщества и секретный ключ: без них сообщество не подключить',
  vkUnavailable: 'ВКонтакте сейчас недоступен, попробуйте позже',
  vkTokenRejected: 'ВКонтакте не принял ключ доступа: проверьте, что он действующий и выдан этим сообществом',
  vkNoRights: 'У ключа доступа не хватает прав: включите права на сообщения и управление сообществом',
  vkServersLimit: 'В сообществе уже 10 серверов Callback API: удалите ненужный в настройках сообщества',
  vkRejected: (detail: string) => `ВКонтакте отклонил запрос: ${detail}`,
  vkGroupMismatch: 'Ключ доступа выдан другим сообществом: проверьте ID сообщества',
  socialUnknownWebhook: 'Webhook не найден: у этого агента не подключено сообщество',
  socialBadSecret: 'Неверный секретный ключ события',
  socialNoEventId: 'В событии нет event_id',
  socialNoConfirmationCode: 'Код подтверждения ещё не известен: запросите его в настройках интеграции',
} as const;

/** Broadcasts: what a client gets besides the owner's text, and the owner's errors. */
export const broadcastTexts = {
  /** The callback button under every broadcast. */
  unsubscribeLabel: 'Отписаться',
  unsubscribed: 'Вы отписались от рассылок: больше их не пришлём. Если напишете нам, ответим как обычно.',
  alreadyUnsubscribed: 'Вы уже отписаны от рассылок. Если напишете нам, ответим как обычно.',
  /** Who wrote a broadcast in the dialogue's transcript. */
  author: 'Рассылка',
  notFound: 'Рассылка не найдена',
  /** Why a queued broadcast was not sent to a client after all. */
  skippedDenied: 'клиент запретил сообщения сообщества',
  skippedUnsubscribed: 'клиент отписался от рассылок',
} as const;
