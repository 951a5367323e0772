// When a payout would be paying someone for inviting themselves. Always: the same mailbox written another
// way (ivan+2@… for ivan@…, Gmail's dots). With REFERRAL_SAME_DOMAIN=refuse also: both addresses at one
// company's domain — but never at a public mail service, where the same domain says nothing about who
// is behind the address.

/** Mail services anyone can sign up at: sharing one of these is not "the same company". */
export const PUBLIC_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'yandex.ru',
  'ya.ru',
  'yandex.com',
  'yandex.by',
  'yandex.kz',
  'mail.ru',
  'inbox.ru',
  'list.ru',
  'bk.ru',
  'internet.ru',
  'rambler.ru',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'yahoo.com',
  'icloud.com',
  'me.com',
  'proton.me',
  'protonmail.com',
]);

const GMAIL = new Set(['gmail.com', 'googlemail.com']);

function split(email: string): { local: string; domain: string } {
  const at = email.lastIndexOf('@');
  return { local: email.slice(0, at).toLowerCase(), domain: email.slice(at + 1).toLowerCase() };
}

/** The mailbox an address delivers to: without a +tag, and without dots at Gmail. */
function mailbox(email: string): string {
  const { local, domain } = split(email);
  const base = local.split('+')[0]!;
  return GMAIL.has(domain) ? `${base.replaceAll('.', '')}@gmail.com` : `${base}@${domain}`;
}

export type SelfReferral = 'same_mailbox' | 'same_domain' | null;

/** Why a payout from `referredEmail`'s top-up to `referrerEmail` is refused as self-referral; null when it is not. */
export function selfReferral(referredEmail: string, referrerEmail: string, sameDomain: 'allow' | 'refuse'): SelfReferral {
  if (mailbox(referredEmail) === mailbox(referrerEmail)) return 'same_mailbox';
  if (sameDomain === 'allow') return null;
  const a = split(referredEmail).domain;
  return a === split(referrerEmail).domain && !PUBLIC_MAIL_DOMAINS.has(a) ? 'same_domain' : null;
}
