// The /v1 gateway's Russian error messages: model catalogue and prices, idempotency, upstream failures, billing and
// the operator's usage export. Types and statuses are http/errors.ts's.
export const gatewayMessages = {
  upstreamAnswerTooLarge: 'Сервис модели прислал слишком большой ответ',
  noProviderAnswered: 'Ни один провайдер модели не смог ответить на запрос, повторите позже',
  idempotencyKeyInvalid: 'Idempotency-Key: от 1 до 255 печатных символов ASCII без пробелов',
  idempotencyKeyReused: 'Idempotency-Key уже использован с другим телом запроса: для нового запроса нужен новый ключ',
  idempotencyInFlight: (requestId: string) => `Запрос с этим Idempotency-Key ещё выполняется (request id ${requestId}): повторите позже`,
  idempotencyStream: (requestId: string) => `Запрос с этим Idempotency-Key уже выполнен (request id ${requestId}); потоковый ответ повторить нельзя`,
  responseNotFound: 'Ответ с таким id не найден',
  serverShuttingDown: 'Сервер перезапускается: ответ прерван, оплачена только полученная часть. Повторите запрос',
  billingUnavailable: 'Учёт баланса временно недоступен, повторите запрос через несколько секунд',
  keyLimitReached: (limit: string) => `Достигнут лимит расходов этого API-ключа (${limit}); измените лимит в настройках ключа`,
  memberLimitReached: (limit: string) => `Достигнут лимит расходов участника организации (${limit}); лимит участника меняют владелец или администратор организации`,
  billingBacklog: 'Сервис перегружен: учёт запросов не успевает записываться, повторите запрос через несколько секунд',
  modelNotFound: 'Модель не найдена в каталоге',
  modelVariantUnlisted: (model: string, base: string) => `Модель ${model} не обслуживается: у этого варианта нет своей цены. Укажите ${base}`,
  modelUnpriced: (model: string) => `Модель ${model} не обслуживается: для неё не задана цена`,
  modelNotAllowed: (model: string) => `Модель ${model} недоступна для вашей учётной записи: доступные вам модели и их цены — в списке моделей`,
  adminUserNotFound: 'Пользователь не найден',
  /** «Превышен лимит ключа: 10 запросов в минуту (rpm). Лимит обновится через 35 с». */
  rateLimited: (what: RateLimitWords, limit: number, resetSeconds: number) =>
    `Превышен лимит ${what.scope === 'key' ? 'ключа' : 'аккаунта'}: ${limit} ${RATE_LIMIT_UNITS[what.name]} (${what.name}). Лимит обновится через ${waitText(resetSeconds)}`,
  audioNotMultipart: 'Тело запроса должно быть multipart/form-data с полями file и model',
  audioFileMissing: 'Приложите аудиофайл в поле file',
  audioFileTooLarge: (mb: number) => `Аудиофайл больше ${mb} МБ: разделите запись на части`,
  audioModelMissing: 'Укажите model в формате <владелец>/<модель>, например openai/whisper-1',
  audioFormatInvalid: 'response_format должен быть json, text, srt, verbose_json или vtt',
  audioStreamUnsupported: 'Потоковая расшифровка (stream=true) не поддерживается: отправьте запрос без stream',
} as const;

/** Which limit a 429 names: rpm, tpm or rpd, of the key or of the whole account. */
export interface RateLimitWords {
  name: 'rpm' | 'tpm' | 'rpd';
  scope: 'key' | 'account';
}

const RATE_LIMIT_UNITS = { rpm: 'запросов в минуту', tpm: 'токенов в минуту', rpd: 'запросов в сутки' } as const;

/** «35 с», «60 с», «4 мин 5 с», «7 ч 12 мин». */
function waitText(seconds: number): string {
  if (seconds <= 60) return `${seconds} с`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} мин${seconds % 60 ? ` ${seconds % 60} с` : ''}`;
  return `${Math.floor(seconds / 3600)} ч ${Math.floor((seconds % 3600) / 60)} мин`;
}

/**
 * The usage file's column headers in its `excel-ru` form (for a person in Excel), by the machine names the
 * default CSV keeps.
 */
export const usageCsvHeadersRu = {
  id: '№ записи',
  created_at: 'Время (МСК)',
  request_id: 'ID запроса',
  endpoint: 'Метод API',
  model: 'Модель',
  key_id: 'ID ключа',
  key_name: 'Ключ',
  agent_id: 'ID агента',
  stream: 'Потоковый ответ',
  status: 'Статус',
  usage_source: 'Источник учёта',
  prompt_tokens: 'Токены запроса',
  completion_tokens: 'Токены ответа',
  total_tokens: 'Всего токенов',
  cached_tokens: 'Токены запроса из кэша',
  cache_write_tokens: 'Токены запроса в кэш',
  reasoning_tokens: 'Токены рассуждений',
  prompt_cost: 'Стоимость запроса',
  completion_cost: 'Стоимость ответа',
  unpaid: 'Не оплачено',
  cost: 'Стоимость',
  currency: 'Валюта',
  duration_ms: 'Длительность, мс',
  audio_seconds: 'Секунд аудио',
  provider_id: 'Провайдер',
  attempts: 'Попыток',
  provider_cost: 'Цена провайдера',
} as const;

/** A yes/no cell of an `excel-ru` file. */
export const csvBooleanRu = { true: 'да', false: 'нет' } as const;
