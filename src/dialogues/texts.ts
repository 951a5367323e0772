// The owner's inbox of dialogues: its Russian messages.
export const dialoguesMessages = {
  dialogueNotFound: 'Диалог не найден',
  dialogueHeldByOther: (name: string | null) => `Диалог уже ведёт ${name ?? 'другой оператор'}: перехватить его можно, когда он вернёт диалог ассистенту`,
  dialogueReplyEmpty: 'text: напишите текст ответа',
  dialogueClientDenied: 'Клиент запретил сообщения от сообщества: ответ не отправлен',
  dialogueNoChannel: 'Сообщество ВКонтакте агента не подключено: ответ не отправлен',
  resultsPeriodInvalid: (maxDays: number) => `Период задан неверно: from раньше to и не длиннее ${maxDays} дней`,
} as const;
