// Russian texts of the page the password-reset link opens (password-reset-page.ts). The mail itself is in
// texts.ts, error messages too (accountsMessages).

export const passwordResetPage = {
  title: 'Новый пароль',
  text: 'Задайте новый пароль учётной записи Conduit. Все прежние сеансы завершатся, ссылки из прежних писем перестанут действовать.',
  textTwoFactor:
    'Задайте новый пароль учётной записи Conduit. У учётной записи включён двухфакторный вход: введите и код из приложения-аутентификатора (или один из кодов восстановления). Все прежние сеансы завершатся.',
  passwordLabel: 'Новый пароль',
  passwordHint: 'Не короче 6 символов.',
  repeatLabel: 'Повторите новый пароль',
  button: 'Сохранить пароль',
  mismatch: 'Пароли не совпадают: введите новый пароль дважды одинаково',
  doneTitle: 'Пароль изменён',
  done: 'Новый пароль сохранён, все прежние сеансы завершены. Войдите с новым паролем.',
  doneBlocked: 'Новый пароль сохранён, все прежние сеансы завершены.',
  toLogin: 'Войти',
  invalidTitle: 'Ссылка недействительна',
  requestNew: 'Запросить новую ссылку',
  refusedTitle: 'Пароль не изменён',
};
