// What the client reads when they tap a choice the assistant offered under its answer (offer_choices, the
// free times under a model's answer) and it no longer fits, or leads on to a choice of specialist.

export const choiceTexts = {
  /** An old button whose service, specialist or time the salon no longer has: the choice starts again. */
  choiceGone: 'Этот вариант уже недоступен. Выберите, пожалуйста, заново — к кому хотите записаться?',
  /** A service tapped that several specialists provide. */
  chooseProvider: (service: string) => `«${service}»: к кому хотите записаться?`,
} as const;
