// What a client's typed turn is while a button flow waits for a datum (a name, a phone, a yes): the datum,
// a wish to stop, a question, or something else. A careful administrator never books «А сколько стоит
// стрижка?» as a name: a question is answered (by the model, told where the flow stands) and the flow
// resumes; «отмена», «передумала», «назад» end it; anything else is asked for again or answered.
import { normaliseText } from './triggers';

export type TurnIntent = 'cancel' | 'question' | 'other';

/** Words that stop a flow when they stand in a short turn: «отмена», «я передумала», «назад». */
const CANCEL_WORDS = new Set(['отмена', 'отменить', 'отмени', 'отменяю', 'отменяем', 'передумал', 'передумала', 'передумали', 'назад', 'стоп', 'отбой']);
/** Whole turns that stop a flow. */
const CANCEL_PHRASES = new Set(['не надо', 'не нужно', 'не хочу', 'уже не надо', 'уже не нужно', 'нет спасибо', 'спасибо не надо', 'не буду']);
/** A cancel word counts in a turn this short («я передумала, не надо»); a longer one is a sentence for the model. */
const CANCEL_MAX_WORDS = 5;

/** Words a question starts with (after «а», «и», «но», «скажите»…). */
const QUESTION_WORDS = new Set([
  'сколько',
  'как',
  'какой',
  'какая',
  'какое',
  'какие',
  'каких',
  'где',
  'когда',
  'почему',
  'зачем',
  'что',
  'чем',
  'кто',
  'куда',
  'откуда',
  'можно',
  'есть',
  'нужно',
  'надо',
  'подскажите',
  'скажите',
  'расскажите',
  'долго',
]);
const LEADING_FILLERS = new Set(['а', 'и', 'но', 'ой', 'так', 'ну', 'слушайте', 'извините', 'простите']);

/**
 * Words that are never a name: a turn with one of them is a sentence («хочу в субботу», «запишите меня»),
 * not «Анна» or «Анна Петровна».
 */
const NOT_NAME_WORDS = new Set([
  'а',
  'и',
  'но',
  'в',
  'во',
  'на',
  'не',
  'нет',
  'да',
  'с',
  'со',
  'к',
  'ко',
  'у',
  'о',
  'по',
  'за',
  'из',
  'от',
  'до',
  'для',
  'ли',
  'же',
  'бы',
  'хочу',
  'хотела',
  'хотел',
  'можно',
  'нужно',
  'надо',
  'лучше',
  'пожалуйста',
  'спасибо',
  'запишите',
  'записаться',
  'запись',
  'меня',
  'мне',
  'мой',
  'моя',
  'мое',
  'мои',
  'номер',
  'телефон',
  'время',
  'день',
  'завтра',
  'сегодня',
  'послезавтра',
  'утром',
  'вечером',
  'понедельник',
  'вторник',
  'среда',
  'среду',
  'четверг',
  'пятница',
  'пятницу',
  'суббота',
  'субботу',
  'воскресенье',
  'стрижка',
  'стрижку',
  'цена',
  'стоит',
  'ответьте',
  'тут',
  'здесь',
  'ок',
  'окей',
  'привет',
  'здравствуйте',
  'ладно',
  'хорошо',
]);
/** Said before a name: «Меня зовут Анна», «Я Анна», «Это Анна». */
const NAME_PREFIX = /^(меня зовут|зовут|мое имя|моё имя|имя|я|это)\s+/iu;
const NAME_SHAPE = /^\p{L}[\p{L}'’-]*( \p{L}[\p{L}'’-]*){0,2}$/u;

const words = (text: string) => normaliseText(text).split(' ').filter(Boolean);

/** Whether the turn stops the flow. */
export function isCancel(text: string): boolean {
  const normal = normaliseText(text);
  if (normal === '') return false;
  if (CANCEL_PHRASES.has(normal)) return true;
  const list = normal.split(' ');
  return list.length <= CANCEL_MAX_WORDS && list.some((w) => CANCEL_WORDS.has(w)) && !text.includes('?');
}

/** Whether the turn asks something: a «?», or a question word at its start («а сколько стоит стрижка»). */
export function isQuestion(text: string): boolean {
  if (text.includes('?')) return true;
  const list = words(text);
  while (list.length > 1 && LEADING_FILLERS.has(list[0]!)) list.shift();
  return list.length > 0 && (QUESTION_WORDS.has(list[0]!) || list.includes('ли'));
}

/** What the turn is when it is not the datum asked for. */
export function intentOf(text: string): TurnIntent {
  if (isCancel(text)) return 'cancel';
  if (isQuestion(text)) return 'question';
  return 'other';
}

/**
 * The name in a turn, or null: letters (a hyphen or an apostrophe inside), one to three words, no «?», none
 * of them a word a sentence is made of. «Меня зовут Анна» gives «Анна».
 */
export function nameOf(text: string): string | null {
  if (text.includes('?')) return null;
  const trimmed = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!,;]+$/u, '')
    .trim();
  const bare = trimmed.replace(NAME_PREFIX, '').trim();
  if (!NAME_SHAPE.test(bare)) return null;
  if (words(bare).some((w) => NOT_NAME_WORDS.has(w) || QUESTION_WORDS.has(w) || CANCEL_WORDS.has(w))) return null;
  return bare.slice(0, 100);
}

/** «Да», «подтверждаю», «всё верно»: the summary is confirmed. */
export function isYes(text: string): boolean {
  return /^(да|ага|верно|все верно|да все верно|да верно|подтверждаю|подтвердить|ок|окей|хорошо|да подтверждаю|все так|да спасибо)$/.test(normaliseText(text));
}

/**
 * The client will not give a phone for a hand-over: «Не хочу давать номер, ответьте тут», «без номера»,
 * «пропустить». The person answers in the chat anyway.
 */
export function refusesPhone(text: string): boolean {
  const normal = normaliseText(text);
  if (/^(пропустить|пропусти|пропустим|без номера|без телефона|не дам|не скажу|не хочу|нет|не буду)$/.test(normal)) return true;
  const aboutPhone = /(номер|телефон)/.test(normal);
  const negative = /(^| )(не|нет|без)( |$)/.test(normal);
  const here = /(ответьте|напишите|пишите|отвечайте) (тут|здесь|в чат|сюда|в вк)/.test(normal);
  return (aboutPhone && negative) || here;
}

/** «Нет», «изменить», «не так»: the summary is to be changed. */
export function isNo(text: string): boolean {
  return /^(нет|неа|изменить|поменять|исправить|не так|неверно|не верно|нет не так|нет изменить)$/.test(normaliseText(text));
}
