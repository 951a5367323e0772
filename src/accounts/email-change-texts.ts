// Russian texts of the e-mail change: the mail with the confirmation link (to the new address), the
// notice to the old address, and the page the link opens. Error messages are texts.ts's accountsMessages.
import { escapeHtml } from './texts';

export const emailChangeMail = {
  subject: 'Подтвердите новый e-mail в Conduit',
  text: (link: string, hours: number) =>
    [
      'Здравствуйте!',
      '',
      'Этот адрес указали как новый e-mail учётной записи Conduit. Чтобы подтвердить смену адреса, откройте ссылку:',
      link,
      '',
      `Ссылка действует ${hours} ч и срабатывает один раз.`,
      'Если вы ничего не меняли, просто удалите это письмо: адрес учётной записи останется прежним.',
    ].join('\n'),
  html: (link: string, hours: number) =>
    `<p>Здравствуйте!</p>` +
    `<p>Этот адрес указали как новый e-mail учётной записи Conduit. Чтобы подтвердить смену адреса, откройте ссылку:<br>` +
    `<a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` +
    `<p>Ссылка действует ${hours} ч и срабатывает один раз.<br>Если вы ничего не меняли, просто удалите это письмо: адрес учётной записи останется прежним.</p>`,
};

/**
 * To the old address once the change is done: the owner learns of it even if someone else made it, and
 * gets a link that puts this address back.
 */
export const emailChangedNotice = {
  subject: 'E-mail вашей учётной записи Conduit изменён',
  text: (newEmail: string, revertLink: string, days: number, loginLink: string) =>
    [
      'Здравствуйте!',
      '',
      `E-mail учётной записи Conduit, к которой был привязан этот адрес, изменён на ${newEmail}.`,
      'Письма сервиса теперь приходят на новый адрес, входить нужно с ним.',
      '',
      'Это был не я — отменить:',
      revertLink,
      `Ссылка действует ${days} дней и срабатывает один раз: она вернёт учётной записи этот адрес и завершит все входы в неё.`,
      `Потом задайте новый пароль через «Забыли пароль?» на странице входа: ${loginLink}`,
    ].join('\n'),
  html: (newEmail: string, revertLink: string, days: number, loginLink: string) =>
    `<p>Здравствуйте!</p>` +
    `<p>E-mail учётной записи Conduit, к которой был привязан этот адрес, изменён на <b>${escapeHtml(newEmail)}</b>.<br>` +
    `Письма сервиса теперь приходят на новый адрес, входить нужно с ним.</p>` +
    `<p><a href="${escapeHtml(revertLink)}">Это был не я — отменить</a></p>` +
    `<p>Ссылка действует ${days} дней и срабатывает один раз: она вернёт учётной записи этот адрес и завершит все входы в неё.<br>` +
    `Потом задайте новый пароль через «Забыли пароль?» на странице входа: <a href="${escapeHtml(loginLink)}">${escapeHtml(loginLink)}</a></p>`,
};

/**
 * To an address that already has an account when someone asks to move another account to it (with
 * REQUIRE_EMAIL_VERIFICATION the request is answered as if the address were free).
 */
export const emailChangeTakenMail = {
  subject: 'Попытка привязать ваш адрес к другой учётной записи Conduit',
  text: (loginLink: string) =>
    [
      'Здравствуйте!',
      '',
      'Кто-то только что указал этот адрес как новый e-mail другой учётной записи Conduit, но адрес уже принадлежит вашей учётной записи, поэтому ничего не изменилось.',
      `Если это были вы, войдите со своим паролем: ${loginLink}`,
      'Если нет, ничего делать не нужно: ваша учётная запись не изменилась.',
    ].join('\n'),
  html: (loginLink: string) =>
    `<p>Здравствуйте!</p>` +
    `<p>Кто-то только что указал этот адрес как новый e-mail другой учётной записи Conduit, но адрес уже принадлежит вашей учётной записи, поэтому ничего не изменилось.</p>` +
    `<p>Если это были вы, войдите со своим паролем: <a href="${escapeHtml(loginLink)}">${escapeHtml(loginLink)}</a><br>Если нет, ничего делать не нужно: ваша учётная запись не изменилась.</p>`,
};

export const emailChangePage = {
  confirmTitle: 'Смена e-mail',
  confirmText: 'Чтобы сменить e-mail учётной записи Conduit на этот адрес, нажмите кнопку. Если вы ничего не меняли, просто закройте страницу.',
  confirmButton: 'Сменить e-mail',
  changedTitle: 'E-mail изменён',
  invalidTitle: 'Ссылка недействительна',
  takenTitle: 'Адрес уже занят',
  revertTitle: 'Отмена смены e-mail',
  revertText:
    'Нажмите кнопку, чтобы вернуть учётной записи Conduit этот адрес. Все входы в неё завершатся, в том числе того, кто сменил адрес. Если смену делали вы, просто закройте страницу.',
  revertButton: 'Вернуть прежний адрес',
  revertedTitle: 'Прежний адрес возвращён',
  reverted: (email: string) =>
    `Учётная запись снова привязана к ${email}, все входы в неё завершены. Тот, кто сменил адрес, знал пароль: задайте новый через «Забыли пароль?».`,
  revertInvalid:
    'Ссылка отмены недействительна: она уже использована или прошло больше 7 дней. Если доступ к учётной записи потерян, обратитесь к оператору сервиса.',
  revertTaken: 'Прежний адрес уже занят другой учётной записью, поэтому вернуть его нельзя. Обратитесь к оператору сервиса.',
  forgotLink: 'Задать новый пароль',
  requestAgain: 'Сменить e-mail ещё раз',
  toLogin: 'Войти',
  toDashboard: 'Перейти в панель',
};
