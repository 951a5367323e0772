// The owner's inbox of dialogues: its Russian messages.
export const dialoguesMessages = {
  dialogueNotFound: 'Диалог не найден',
  dialogueHeldByOther: (name: string | null) => `Диалог уже ведёт ${name ?? 'другой оператор'}: перехватить его можно, когда он вернёт диалог ассистенту`,
  dialogueReplyEmpty: 'text: напишите текст ответа',
  noteEmpty: 'text: напишите текст заметки',
  quickReplyNotFound: 'Быстрый ответ не найден',
  tooManyQuickReplies: (max: number) => `Быстрых ответов может быть не больше ${max}: удалите ненужные`,
  dialogueClientDenied: 'Клиент запретил сообщения от сообщества: ответ не отправлен',
  dialogueNoChannel: 'Сообщество ВКонтакте агента не подключено: ответ не отправлен',
  resultsPeriodInvalid: (maxDays: number) => `Период задан неверно: from раньше to и не длиннее ${maxDays} дней`,
} as const;
