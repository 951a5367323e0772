// What key creation and key changes accept: zod only, shared with the dashboard page's form.
import { z } from 'zod';
import { isIsoInstant } from '../http/date-input';
import { LIMIT_RESETS } from './limits';
import { KEY_CACHE_MODES, KEY_SCOPES } from './types';
import { unitsToNano } from '../money';

const keyName = z.string({ error: 'Укажите название ключа' }).trim().min(1, 'Укажите название ключа').max(100, 'Название ключа не может быть длиннее 100 символов');

/** A spend limit in currency units; null removes it. Exact to 1e-9, as money is kept. */
export const spendLimitInput = z
  .number({ error: 'Лимит расходов должен быть числом в валюте баланса' })
  .min(0, 'Лимит расходов не может быть отрицательным')
  .max(1_000_000_000, 'Лимит расходов не может превышать 1 000 000 000')
  .refine((v) => unitsToNano(v) !== null, 'Лимит расходов: не более 9 знаков после запятой')
  .nullable();

export const limitResetInput = z.enum(LIMIT_RESETS, {
  error: 'Период лимита: none (без сброса), day, week или month',
});

/** An ISO 8601 moment with its offset; null: the key never expires. */
const EXPIRES_AT_FORMAT = 'Срок действия: дата и время в формате ISO 8601, например 2027-01-31T23:59:59Z';
export const expiresAtInput = z.iso.datetime({ offset: true, error: EXPIRES_AT_FORMAT }).refine(isIsoInstant, EXPIRES_AT_FORMAT).nullable();

/**
 * A key's own rate limit (requests or tokens in its window); null: the operator's default. The key's number
 * replaces the default either way; the account's limits still hold over all its keys.
 */
const rateLimitInput = (what: string) =>
  z
    .number({ error: `${what}: целое число` })
    .int(`${what}: целое число`)
    .min(1, `${what}: не меньше 1 (пусто — по умолчанию)`)
    .max(1_000_000_000, `${what}: не больше 1 000 000 000`)
    .nullable()
    .optional();

/** rpm, tpm, rpd: as OpenAI names them in its limits. */
const keyRateLimits = {
  rpm: rateLimitInput('Запросов в минуту').describe('Запросов в минуту для ключа; null — по умолчанию (RATE_LIMIT_PER_MINUTE)'),
  tpm: rateLimitInput('Токенов в минуту').describe('Токенов в минуту для ключа; null — по умолчанию (RATE_LIMIT_TOKENS_PER_MINUTE)'),
  rpd: rateLimitInput('Запросов в сутки').describe('Запросов в сутки (UTC) для ключа; null — по умолчанию (RATE_LIMIT_PER_DAY)'),
};

/** Which usage the key reads through /api/usage: its own (default) or the whole account's. */
export const keyScopeInput = z
  .enum(KEY_SCOPES, { error: 'ожидается key (ключ видит только своё использование) или account (всё использование аккаунта)' })
  .describe('Какое использование видит ключ в /api/usage: key — только своё (по умолчанию), account — всего аккаунта, как панель');

/** Which of the key's chat requests the response cache answers. */
export const keyCacheInput = z
  .enum(KEY_CACHE_MODES, { error: 'ожидается off, on или any' })
  .describe(
    'Кэш ответов: off — только запросы с заголовком x-conduit-cache: on (по умолчанию), on — все запросы без stream с temperature 0, any — при любой temperature',
  );

export const createKeyInput = z.object({
  name: keyName,
  scope: keyScopeInput.optional(),
  cache: keyCacheInput.optional(),
  spendLimit: spendLimitInput.optional(),
  limitReset: limitResetInput.optional(),
  expiresAt: expiresAtInput.optional().refine((v) => v === undefined || v === null || Date.parse(v) > Date.now(), 'Срок действия должен быть в будущем'),
  ...keyRateLimits,
});

export const updateKeyInput = z.object({
  id: z.string().max(100),
  name: keyName.optional(),
  cache: keyCacheInput.optional(),
  spendLimit: spendLimitInput.optional(),
  limitReset: limitResetInput.optional(),
  expiresAt: expiresAtInput.optional(),
  ...keyRateLimits,
});
