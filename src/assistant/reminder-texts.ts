// What a visit reminder and its buttons say (issue 42 point 1): the reminder before the visit, and the
// answers to «Подтвердить» / «Перенести» / «Отменить» under it.
export const reminderTexts = {
  buttonConfirm: 'Подтвердить',
  buttonReschedule: 'Перенести',
  buttonCancel: 'Отменить',
  buttonCancelYes: 'Да, отменить',
  buttonKeep: 'Нет, оставить',

  reminder: (d: { when: string; service: string; specialist: string }) =>
    [`Напоминаем о вашей записи: ${d.when}.`, `${d.service}, ${d.specialist}.`, 'Подтвердите, пожалуйста, визит — или перенесите либо отмените запись.'].join('\n'),
  confirmed: (when: string) => `Спасибо! Визит ${when} подтверждён — ждём вас.`,
  askCancel: (d: { when: string; service: string; specialist: string }) => `Отменить запись ${d.when} (${d.service}, ${d.specialist})?`,
  canceled: (when: string) => `Запись ${when} отменена. Если захотите записаться снова — нажмите «Записаться».`,
  kept: (when: string) => `Хорошо, запись ${when} остаётся. Ждём вас!`,
} as const;
