// Russian words of the referral screens.
import type { ReferralStatus } from '@server/referrals/input';

export const referralStatusLabels: Record<ReferralStatus, string> = {
  active: 'Начисляется',
  expired: 'Срок истёк',
  refused: 'Не начисляется: похоже на приглашение самого себя',
};

/** «7,5 %» */
export const percentText = (percent: number) => `${percent.toLocaleString('ru-RU', { maximumFractionDigits: 4 })} %`;

/** «12 месяцев», «1 месяц», «3 месяца». */
export function monthsText(months: number): string {
  const tens = months % 100;
  const ones = months % 10;
  const word = tens >= 11 && tens <= 14 ? 'месяцев' : ones === 1 ? 'месяц' : ones >= 2 && ones <= 4 ? 'месяца' : 'месяцев';
  return `${months} ${word}`;
}

export const termsText = (percent: number, months: number) =>
  `За каждого, кто зарегистрируется по вашей ссылке, на ваш баланс начисляется ${percentText(percent)} от его пополнений ` +
  `картой или банковским переводом в течение ${monthsText(months)} после его регистрации. Бонусы, промокоды и начисления ` +
  'администратора не учитываются.';

export const inviteText = (percent: number, months: number) =>
  `Приглашайте других: ${percentText(percent)} от пополнений каждого, кто зарегистрируется по вашей ссылке, ` + `в течение ${monthsText(months)} — на ваш баланс.`;

export const REFERRALS_OFF = 'Реферальная программа сейчас выключена: оператор сервиса не начисляет вознаграждение за приглашённых.';

/** Where the registration page keeps the invitation code while the visitor moves between the login and registration forms. */
export const REFERRAL_CODE_KEY = 'conduit.referralCode';
