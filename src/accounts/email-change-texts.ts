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

/** To the old address once the change is done: the owner learns of it even if someone else made it. */
export const emailChangedNotice = {
  subject: 'E-mail вашей учётной записи Conduit изменён',
  text: (newEmail: string, loginLink: string) =>
    [
      'Здравствуйте!',
      '',
      `E-mail учётной записи Conduit, к которой был привязан этот адрес, изменён на ${newEmail}.`,
      'Письма сервиса теперь приходят на новый адрес, входить нужно с ним.',
      '',
      `Если это сделали не вы, немедленно обратитесь к оператору сервиса или восстановите доступ через «Забыли пароль?» на странице входа: ${loginLink}`,
    ].join('\n'),
  html: (newEmail: string, loginLink: string) =>
    `<p>Здравствуйте!</p>` +
    `<p>E-mail учётной записи Conduit, к которой был привязан этот адрес, изменён на <b>${escapeHtml(newEmail)}</b>.<br>` +
    `Письма сервиса теперь приходят на новый адрес, входить нужно с ним.</p>` +
    `<p>Если это сделали не вы, немедленно обратитесь к оператору сервиса или восстановите доступ через «Забыли пароль?» на странице входа: ` +
    `<a href="${escapeHtml(loginLink)}">${escapeHtml(loginLink)}</a></p>`,
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
};
