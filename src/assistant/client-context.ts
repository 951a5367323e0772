// The model knows the client (issue 39 point 7): what this dialogue already knows of them — the name and
// phone they gave, their upcoming visits and unpaid orders — goes into the turn's system prompt, so a
// returning client is not asked again for what they said before. Only this dialogue's own facts: another
// client's visits and orders are never in it. The phone is the client's own and the model needs it for
// book_appointment / checkout; in logs it only ever appears masked (maskPhone).
import type { DialogueRow } from './flow';

/** The facts each tool family knows of the client (upcoming visits, unpaid orders), one line each. */
export type ClientFacts = string[];

/** «+7 916 ***-**-33»: enough for a person reading a log to tell two clients apart, not to call them. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length < 6) return '***';
  return `+${digits.slice(0, 1)} ${digits.slice(1, 4)} ***-**-${digits.slice(-2)}`;
}

/** «+7 916 111-22-33» from the dialogue's stored 79161112233. */
function readablePhone(phone: string): string {
  const d = phone.replace(/\D/g, '');
  if (d.length !== 11) return phone;
  return `+${d[0]} ${d.slice(1, 4)} ${d.slice(4, 7)}-${d.slice(7, 9)}-${d.slice(9)}`;
}

/** The system prompt's paragraph about the client, or null when nothing is known. */
export function clientContext(dialogue: Pick<DialogueRow, 'clientName' | 'clientPhone'>, facts: ClientFacts): string | null {
  const lines: string[] = [];
  if (dialogue.clientName) lines.push(`Имя: ${dialogue.clientName}.`);
  if (dialogue.clientPhone) lines.push(`Телефон: ${readablePhone(dialogue.clientPhone)}.`);
  lines.push(...facts);
  if (lines.length === 0) return null;
  return [
    'Что известно об этом клиенте из прошлых разговоров (не спрашивай заново то, что здесь есть; уточни, только если клиент сам хочет изменить):',
    ...lines,
  ].join('\n');
}
