// What the client reads when they tap a choice the assistant offered under its answer (offer_choices, the
// free times under a model's answer) and it no longer fits, or leads on to a choice of specialist.

export const choiceTexts = {
  /** An old button whose service, specialist or time the salon no longer has: the choice starts again. */
  choiceGone: 'Этот вариант уже недоступен. Выберите, пожалуйста, заново — к кому хотите записаться?',
  /** A time tapped by a client who already has a visit for that service and specialist: moving it, or one more. */
  moveOrNew: (d: { service: string; specialist: string; before: string; after: string }) =>
    `У вас уже есть запись: ${d.service}, ${d.specialist}, ${d.before}. Перенести её на ${d.after} или записаться ещё раз?`,
  buttonMove: 'Перенести запись',
  buttonNew: 'Записаться ещё раз',
  /** A service tapped that several specialists provide. */
  chooseProvider: (service: string) => `«${service}»: к кому хотите записаться?`,
} as const;
