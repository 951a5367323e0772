// «Мои записи» (issue 42 point 4): the client's upcoming visits — booked in the dialogue, and, when the owner
// switched matching on, those made in the salon for the client's phone and name — with a way to move or cancel each.
export const myBookingsTexts = {
  buttonMine: 'Мои записи',
  none: 'Предстоящих записей у вас нет. Чтобы записаться, нажмите «Записаться».',
  list: (items: { when: string; service: string; specialist: string }[]) =>
    ['Ваши предстоящие записи:', ...items.map((i) => `• ${i.when} — ${i.service}, ${i.specialist}`)].join('\n'),
  buttonReschedule: (when: string) => `Перенести ${when}`,
  buttonCancel: (when: string) => `Отменить ${when}`,
} as const;
