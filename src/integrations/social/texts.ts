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
