// Text triggers: a few words mean a fixed answer, whatever the case, punctuation, emoji or ё.

export type Trigger = 'welcome' | 'menu' | 'help' | 'operator';

/** Lower case, ё → е, everything but letters, digits and single spaces removed. */
export function normaliseText(text: string): string {
  return text
    .toLowerCase()
    .replace(/ё/g, 'е')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const EXACT: Record<string, Trigger> = {
  привет: 'welcome',
  приветик: 'welcome',
  здравствуй: 'welcome',
  здравствуйте: 'welcome',
  меню: 'menu',
  'главное меню': 'menu',
  помощь: 'help',
  помоги: 'help',
  оператор: 'operator',
  человек: 'operator',
  менеджер: 'operator',
};

// A request for a person in a sentence: «позовите оператора», «можно с человеком поговорить?».
const OPERATOR_PHRASE = /(^| )(оператор[а-я]*|живо[йгм][а-я]* человек[а-я]*|менеджер[а-я]*|сотрудник[а-я]*|с человеком)( |$)/;

/** The trigger a client's message is, or null when it is for the model. */
export function matchTrigger(text: string): Trigger | null {
  const normal = normaliseText(text);
  if (normal === '') return null;
  const exact = EXACT[normal];
  if (exact) return exact;
  // A greeting with a name or an emoji after it is still a greeting: «Привет, бот!».
  const first = normal.split(' ')[0]!;
  if ((first === 'привет' || first === 'здравствуй' || first === 'здравствуйте') && normal.split(' ').length <= 3) return 'welcome';
  if (normal.length <= 60 && OPERATOR_PHRASE.test(normal)) return 'operator';
  return null;
}
