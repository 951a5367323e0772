// Russian texts of the alert e-mails and the alert settings' API messages.
import { escapeHtml } from '../accounts';

const paragraphs = (lines: string[][]) => lines.map((p) => `<p>${p.map(escapeHtml).join('<br>')}</p>`).join('');
const linked = (html: string, url: string) => html.replaceAll(escapeHtml(url), `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`);

export const lowBalanceMail = {
  subject: (threshold: string) => `Баланс Conduit ниже ${threshold}`,
  lines: (balance: string, threshold: string, topupUrl: string, settingsUrl: string) => [
    ['Здравствуйте!'],
    [`Баланс вашей учётной записи опустился ниже порога, который вы указали: сейчас на балансе ${balance} (порог ${threshold}).`],
    ['Когда баланс закончится, запросы к API будут отклоняться: на балансе будет недостаточно средств.'],
    ['Пополнить баланс:', topupUrl],
    ['Следующее письмо придёт, когда баланс снова поднимется выше порога и опустится ниже. Изменить порог или отключить уведомления:', settingsUrl],
  ],
};

export const keyLimitMail = {
  subject: (keyName: string) => `Ключ «${keyName}» израсходовал 80 % лимита`,
  lines: (keyName: string, keyPrefix: string, spent: string, limit: string, keysUrl: string, settingsUrl: string) => [
    ['Здравствуйте!'],
    [`API-ключ «${keyName}» (${keyPrefix}…) израсходовал ${spent} из лимита ${limit}.`],
    ['Когда лимит будет исчерпан, запросы с этим ключом будут отклоняться до начала следующего периода.'],
    ['Изменить лимит ключа:', keysUrl],
    ['Отключить такие уведомления:', settingsUrl],
  ],
};

export const organizationLowBalanceMail = {
  subject: (organization: string, threshold: string) => `Баланс организации «${organization}» в Conduit ниже ${threshold}`,
  lines: (organization: string, balance: string, threshold: string, topupUrl: string, settingsUrl: string) => [
    ['Здравствуйте!'],
    [`Баланс организации «${organization}» опустился ниже порога, который для неё указан: сейчас на балансе ${balance} (порог ${threshold}).`],
    ['Когда баланс закончится, запросы к API с ключами организации будут отклоняться: на балансе будет недостаточно средств.'],
    ['Пополнить баланс организации картой или счётом на оплату:', topupUrl],
    [
      'Письмо получают владельцы и бухгалтеры организации. Следующее придёт, когда баланс снова поднимется выше порога и опустится ниже. Изменить порог:',
      settingsUrl,
    ],
  ],
};

export const memberLimitMail = {
  subject: (organization: string) => `Исчерпан месячный лимит расходов участника в организации «${organization}»`,
  toMember: (organization: string, spent: string, limit: string) => [
    ['Здравствуйте!'],
    [`Ваши API-ключи в организации «${organization}» израсходовали ${spent} при лимите ${limit}.`],
    ['До начала следующего месяца запросы с этими ключами будут отклоняться. Поднять лимит могут владелец или администратор организации.'],
  ],
  toAdmins: (organization: string, member: string, spent: string, limit: string, membersUrl: string) => [
    ['Здравствуйте!'],
    [`Участник ${member} израсходовал в организации «${organization}» ${spent} при месячном лимите ${limit}.`],
    ['До начала следующего месяца запросы с его ключами будут отклоняться. Изменить лимит участника:', membersUrl],
  ],
};

/** The text and HTML parts of a mail from its paragraphs; the listed URLs become links in the HTML. */
export function mailBodies(lines: string[][], urls: string[]): { text: string; html: string } {
  const text = lines.map((p) => p.join('\n')).join('\n\n');
  let html = paragraphs(lines);
  for (const url of urls) html = linked(html, url);
  return { text, html };
}

/** What the alert settings refuse: the webhook's address and its secret. */
export const alertsMessages = {
  alertWebhookUrlInvalid: 'Адрес вебхука: укажите адрес http:// или https:// без логина и пароля (до 2000 символов) или null, чтобы отключить вебхук',
  alertWebhookPrivate: 'Адрес вебхука: адрес ведёт во внутреннюю сеть (localhost, частный или служебный IP-адрес): укажите адрес, доступный из интернета',
  alertWebhookUnknownHost: 'Адрес вебхука: такое имя хоста не найдено в DNS, проверьте адрес',
  alertWebhookSecretWithoutUrl: 'Новый секрет уведомлений: сначала укажите адрес вебхука — секрет подписывает его запросы',
} as const;
