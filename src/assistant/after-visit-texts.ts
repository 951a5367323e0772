// What the client is told after a visit (issue 42 point 2): the review request and the answers to its score,
// the «записаться снова» nudge, and the no-show's «мы вас ждали» — and what the owner is told of a low score.
export const afterVisitTexts = {
  reviewRequest: (d: { when: string; service: string; specialist: string }) =>
    [`Как прошёл визит ${d.when}? ${d.service}, ${d.specialist}.`, 'Оцените, пожалуйста, от 1 до 5 — нажмите цифру под сообщением.'].join('\n'),
  thanksHigh: 'Спасибо за оценку! Очень рады, что вам понравилось, — ждём вас снова.',
  askPublicReview: 'Если не трудно, оставьте, пожалуйста, отзыв о нас — он очень помогает салону.',
  buttonPublicReview: 'Оставить отзыв',
  apology: [
    'Нам очень жаль, что визит вас огорчил. Спасибо, что сказали честно.',
    'Мы уже передали вашу оценку администратору салона — он свяжется с вами здесь и во всём разберётся. Если хотите, напишите, что пошло не так.',
  ].join('\n'),
  alreadyScored: (score: number) => `Спасибо, вашу оценку этого визита (${score} из 5) мы уже получили.`,
  lowScoreReason: (d: { score: number; when: string; service: string; specialist: string; client: string; link: string }) =>
    `низкая оценка визита: ${d.score} из 5 (${d.service}, ${d.specialist}, ${d.when}). Клиент: ${d.client}. Диалог: ${d.link}`,

  rebook: (d: { when: string; service: string; specialist: string }) =>
    [`Здравствуйте! В прошлый раз вы были у нас ${d.when}: ${d.service}, ${d.specialist}.`, 'Пора записаться снова? Покажем свободное время:'].join('\n'),
  buttonRebook: 'Записаться снова',

  noShow: (d: { when: string; service: string; specialist: string }) =>
    [`Мы вас ждали ${d.when} (${d.service}, ${d.specialist}), но не дождались. Надеемся, у вас всё хорошо!`, 'Хотите перенести визит на другое время?'].join('\n'),
  buttonNoShowRebook: 'Выбрать другое время',
} as const;
