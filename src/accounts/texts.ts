// Russian texts of the account flows: the verification e-mail and the page its link opens, the other account
// mails, and the API's messages (accountsMessages, at the end).

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const purpose = (withBonus: boolean) =>
  withBonus ? 'Чтобы подтвердить адрес и получить стартовый бонус, откройте ссылку:' : 'Чтобы подтвердить адрес, откройте ссылку:';

export const verificationMail = {
  subject: 'Подтвердите e-mail в Conduit',
  text: (link: string, hours: number, withBonus: boolean) =>
    [
      'Здравствуйте!',
      '',
      purpose(withBonus),
      link,
      '',
      `Ссылка действует ${hours} ч и срабатывает один раз.`,
      'Если вы не регистрировались в Conduit, просто удалите это письмо.',
    ].join('\n'),
  html: (link: string, hours: number, withBonus: boolean) =>
    `<p>Здравствуйте!</p>` +
    `<p>${purpose(withBonus)}<br><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` +
    `<p>Ссылка действует ${hours} ч и срабатывает один раз.<br>Если вы не регистрировались в Conduit, просто удалите это письмо.</p>`,
};

export { escapeHtml };

export const verificationPage = {
  confirmTitle: 'Подтверждение e-mail',
  confirmText: 'Чтобы подтвердить этот адрес для учётной записи Conduit, нажмите кнопку. Если вы не регистрировались, просто закройте страницу.',
  confirmAdminText:
    'Этот адрес указан как адрес администратора сервиса. Подтвердите его и задайте пароль учётной записи: права администратора получит только тот, кто задал пароль здесь. Все прежние сеансы этой учётной записи завершатся.',
  confirmButton: 'Подтвердить адрес',
  passwordLabel: 'Новый пароль учётной записи',
  passwordHint: 'Не короче 6 символов. Входите с ним после подтверждения.',
  totpLabel: 'Код из приложения-аутентификатора или код восстановления',
  verifiedTitle: 'Адрес подтверждён',
  verified: 'Спасибо! Адрес подтверждён.',
  bonusCredited: 'Стартовый бонус начислен на баланс.',
  promoted: 'Пароль задан, учётная запись получила права администратора; войдите с новым паролем.',
  invalidTitle: 'Ссылка недействительна',
  toDashboard: 'Перейти в панель',
  // A link that cannot be used, by what happened (email-verification.ts, explain).
  alreadyTitle: 'Адрес уже подтверждён',
  already: 'Этот адрес уже подтверждён, ссылка больше не нужна. Войдите, чтобы продолжить.',
  expiredTitle: 'Ссылка устарела',
  expired:
    'Ссылка из этого письма больше не действует: она живёт 24 часа, а с каждым новым письмом прежние ссылки заменяются. Запросите новую: войдите и нажмите «Отправить письмо ещё раз» в разделе «Аккаунт».',
  otherAddressTitle: 'Ссылка для прежнего адреса',
  otherAddress:
    'Эта ссылка подтверждает адрес, который у учётной записи уже сменён. Откройте ссылку из письма, пришедшего на новый адрес, или запросите новую в разделе «Аккаунт».',
  unknownTitle: 'Ссылка не найдена',
  unknown: 'Такой ссылки нет: возможно, она скопирована не полностью. Откройте её прямо из письма или запросите новую в разделе «Аккаунт».',
  toLogin: 'Войти',
  requestNew: 'Запросить новую ссылку',
};

/** What the verification's POST answers: verified, the bonus if it came, the admin role if it was given. */
export function verifiedMessage(verified: { creditedNano: bigint; promoted: boolean }): string {
  return [verificationPage.verified, verified.creditedNano > 0n ? verificationPage.bonusCredited : '', verified.promoted ? verificationPage.promoted : '']
    .filter(Boolean)
    .join(' ');
}

/**
 * Mailed to an account's address when someone registers it again while e-mail verification is required:
 * the registration is answered as if it succeeded (so it does not tell strangers which addresses have
 * accounts), and the owner learns of it here.
 */
export const takenAddressMail = {
  subject: 'Попытка регистрации в Conduit с вашим адресом',
  text: (loginLink: string) =>
    [
      'Здравствуйте!',
      '',
      'Кто-то только что пытался зарегистрироваться в Conduit с этим адресом, но у вас уже есть учётная запись.',
      `Если это были вы, войдите с прежним паролем: ${loginLink}`,
      '',
      'Если это были не вы, ничего делать не нужно: новая учётная запись не создана, ваша не изменилась.',
    ].join('\n'),
  html: (loginLink: string) =>
    `<p>Здравствуйте!</p>` +
    `<p>Кто-то только что пытался зарегистрироваться в Conduit с этим адресом, но у вас уже есть учётная запись.</p>` +
    `<p>Если это были вы, войдите с прежним паролем: <a href="${escapeHtml(loginLink)}">${escapeHtml(loginLink)}</a></p>` +
    `<p>Если это были не вы, ничего делать не нужно: новая учётная запись не создана, ваша не изменилась.</p>`,
};

/** The password-reset mail: a one-time link to the dashboard's reset page. */
export const passwordResetMail = {
  subject: 'Сброс пароля в Conduit',
  text: (link: string, byOperator: boolean) =>
    [
      'Здравствуйте!',
      '',
      byOperator
        ? 'Администратор сервиса отправил вам ссылку для сброса пароля. Чтобы задать новый пароль, откройте её:'
        : 'Кто-то (надеемся, вы) запросил сброс пароля. Чтобы задать новый пароль, откройте ссылку:',
      link,
      '',
      'Ссылка действует 1 час и срабатывает один раз. После смены пароля все прежние сеансы завершатся.',
      'Если вы не запрашивали сброс, просто удалите это письмо: пароль останется прежним.',
    ].join('\n'),
  html: (link: string, byOperator: boolean) =>
    `<p>Здравствуйте!</p>` +
    `<p>${
      byOperator
        ? 'Администратор сервиса отправил вам ссылку для сброса пароля. Чтобы задать новый пароль, откройте её:'
        : 'Кто-то (надеемся, вы) запросил сброс пароля. Чтобы задать новый пароль, откройте ссылку:'
    }<br><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` +
    `<p>Ссылка действует 1 час и срабатывает один раз. После смены пароля все прежние сеансы завершатся.<br>` +
    `Если вы не запрашивали сброс, просто удалите это письмо: пароль останется прежним.</p>`,
};

/** What happened to the account, as the owner is told by mail (security-notices.ts). */
export type SecurityEvent = 'password_changed' | 'two_factor_enabled' | 'two_factor_disabled' | 'recovery_code_used' | 'two_factor_locked' | 'new_device_sign_in';

/** What a notice names beside the event: the sign-in's device and address. */
export interface SecurityEventDetail {
  device?: string;
  address?: string;
}

type SecurityMailFacts = SecurityEventDetail & { minutes: number };

const securityLines: Record<SecurityEvent, { subject: string; what: (facts: SecurityMailFacts) => string }> = {
  password_changed: {
    subject: 'Пароль в Conduit изменён',
    what: () => 'Пароль вашей учётной записи Conduit только что изменён. Все прежние сеансы завершены, ссылки из прежних писем больше не действуют.',
  },
  two_factor_enabled: {
    subject: 'Двухфакторный вход в Conduit включён',
    what: () => 'Для вашей учётной записи Conduit включён двухфакторный вход: теперь при входе нужен код из приложения-аутентификатора.',
  },
  two_factor_disabled: {
    subject: 'Двухфакторный вход в Conduit отключён',
    what: () => 'Для вашей учётной записи Conduit отключён двухфакторный вход: теперь для входа достаточно пароля.',
  },
  recovery_code_used: {
    subject: 'Использован код восстановления Conduit',
    what: () => 'Для входа в вашу учётную запись Conduit только что использован один из кодов восстановления. Он больше не действует.',
  },
  two_factor_locked: {
    subject: 'Подбор кода двухфакторного входа в Conduit',
    what: ({ minutes }) =>
      `Кто-то несколько раз ввёл неверный код двухфакторного входа в вашу учётную запись Conduit — значит, ему известен ваш пароль. ` +
      `Коды не принимаются ${minutes} мин. Смените пароль как можно скорее.`,
  },
  new_device_sign_in: {
    subject: 'Вход в Conduit с нового устройства',
    what: ({ device, address }) =>
      `В вашу учётную запись Conduit только что вошли с устройства, с которого раньше не входили: ${device ?? 'неизвестное устройство'}, адрес ${address ?? 'неизвестен'}. ` +
      'Если это были вы, ничего делать не нужно. Если нет, завершите этот сеанс в разделе «Аккаунт» → «Сеансы».',
  },
};

export const securityNoticeMail = {
  subject: (event: SecurityEvent) => securityLines[event].subject,
  text: (event: SecurityEvent, facts: SecurityMailFacts, loginLink: string) =>
    [
      'Здравствуйте!',
      '',
      securityLines[event].what(facts),
      '',
      `Если это сделали не вы, немедленно смените пароль через «Забыли пароль?» на странице входа и обратитесь к оператору сервиса: ${loginLink}`,
    ].join('\n'),
  html: (event: SecurityEvent, facts: SecurityMailFacts, loginLink: string) =>
    `<p>Здравствуйте!</p><p>${escapeHtml(securityLines[event].what(facts))}</p>` +
    `<p>Если это сделали не вы, немедленно смените пароль через «Забыли пароль?» на странице входа и обратитесь к оператору сервиса: ` +
    `<a href="${escapeHtml(loginLink)}">${escapeHtml(loginLink)}</a></p>`,
};

// The accounts' API messages (the authenticator and top-ups give invalidToken too).
export const accountsMessages = {
  emailTaken: 'Пользователь с таким e-mail уже зарегистрирован',
  invalidEmail: 'Укажите корректный e-mail',
  referralCodeInvalid: 'строка не длиннее 64 символов (код есть в ссылке-приглашении после ?ref=)',
  passwordTooShort: 'Пароль должен содержать не менее 6 символов',
  passwordTooLong: 'Пароль не может быть длиннее 1024 символов',
  adminPasswordRequired:
    'Этот адрес — адрес администратора сервиса: чтобы подтвердить его, задайте пароль учётной записи (не короче 6 символов). Все прежние сеансы завершатся',
  invalidCredentials: 'Неверный e-mail или пароль',
  tooManyLoginAttempts: 'Слишком много неудачных попыток входа, повторите позже',
  tooManyRegistrations: 'Слишком много регистраций с вашего адреса, повторите позже',
  registeredVerifyEmail:
    'Регистрация прошла успешно. Мы отправили письмо со ссылкой для подтверждения e-mail: стартовый бонус будет начислен, когда вы перейдёте по ней',
  verificationLinkInvalid: 'Ссылка подтверждения недействительна: она уже использована, устарела или скопирована не полностью. Запросите новую в панели',
  verificationSent: 'Письмо со ссылкой для подтверждения e-mail отправлено',
  verificationNotRequired: 'Подтверждение e-mail на этом сервере не требуется',
  emailAlreadyVerified: 'E-mail уже подтверждён',
  tooManyVerificationMails: 'Слишком много писем подтверждения, повторите позже',
  verificationMailFailed: 'Не удалось отправить письмо: почтовый сервер недоступен, повторите позже',
  passwordResetSent: 'Если такой e-mail зарегистрирован, мы отправили на него ссылку для сброса пароля. Ссылка действует 1 час',
  passwordResetUnavailable: 'Сброс пароля по e-mail на этом сервере не настроен (нет почтового сервера): обратитесь к администратору сервиса',
  passwordResetLinkInvalid: 'Ссылка для сброса пароля недействительна: она уже использована, устарела или заменена более новой. Запросите новую',
  tooManyPasswordResets: 'Слишком много запросов на сброс пароля, повторите позже',
  passwordResetMailFailed: 'Не удалось отправить письмо со ссылкой: почтовый сервер недоступен, повторите позже',
  currentPasswordWrong: 'Текущий пароль указан неверно',
  tooManyPasswordAttempts: 'Слишком много неудачных попыток ввести текущий пароль, повторите позже',
  passwordChanged: 'Пароль изменён. Остальные сеансы завершены',
  sessionsEnded: 'Все сеансы завершены: войдите заново',
  sessionEnded: 'Сеанс завершён',
  otherSessionsEnded: (count: number) => (count === 0 ? 'Других сеансов нет' : `Завершено сеансов: ${count}`),
  sessionNotFound: 'Сеанс не найден: он уже завершён или принадлежит другому пользователю',
  invalidToken: 'Недействительный или просроченный токен',
  registered: 'Регистрация прошла успешно',
  // Two-factor login (two-factor.ts).
  totpRequired: 'Введите код из приложения-аутентификатора (или один из кодов восстановления)',
  totpInvalid: 'Неверный или уже использованный код подтверждения',
  totpAlreadyEnabled: 'Двухфакторный вход уже включён; чтобы настроить заново, сначала отключите его',
  totpNotSetUp: 'Сначала начните настройку двухфакторного входа: отсканируйте новый QR-код',
  totpNotEnabled: 'Двухфакторный вход не включён',
  totpNeedsConfirmedAddress:
    'Двухфакторный вход для этого адреса можно включить только после подтверждения адреса: откройте ссылку из письма, отправленного на него, и задайте там пароль',
  totpDisabled: 'Двухфакторный вход отключён',
  tooManyTotpAttempts: 'Слишком много неверных кодов, повторите позже',
  // E-mail change (email-change.ts).
  wrongPassword: 'Неверный пароль',
  emailUnchanged: 'Это и есть ваш текущий e-mail',
  emailChangeSent: 'Мы отправили ссылку для подтверждения на новый адрес; она действует 1 час',
  emailChangeLinkInvalid: 'Ссылка недействительна: она устарела, уже использована или адрес сменили по другой ссылке',
  emailChanged: (email: string) => `E-mail изменён: теперь входите с адресом ${email}`,
  emailChangeMailFailed: 'Не удалось отправить письмо, повторите позже',
  emailChangeUnavailable: 'Смена e-mail недоступна: на сервере не настроена отправка почты, обратитесь к оператору',
  tooManyEmailChanges: 'Слишком много попыток сменить e-mail, повторите позже',
} as const;
