// The base's Russian error messages: the defaults per error type (http/errors.ts), the transport's refusals, and the
// texts features share where none of them is below the others. A feature's own messages live in its texts.ts (house
// rule 9). Types and codes stay English.

export const errorMessages = {
  // Defaults per error type.
  invalidRequest: 'Некорректный запрос',
  unauthorized: 'Требуется авторизация: передайте заголовок Authorization: Bearer <токен>',
  insufficientBalance: 'Недостаточно средств на балансе для выполнения запроса',
  forbidden: 'Доступ запрещён',
  notFound: 'Не найдено',
  conflict: 'Конфликт с текущим состоянием ресурса',
  payloadTooLarge: 'Тело запроса превышает допустимый размер',
  rateLimited: 'Слишком много запросов, повторите позже',
  upstreamError: 'Сервис модели недоступен или вернул ошибку',
  upstreamTimeout: 'Сервис модели не ответил вовремя',
  internal: 'Внутренняя ошибка сервера',
  serviceUnavailable: 'Сервис временно недоступен, повторите запрос через несколько секунд',

  // Transport.
  routeNotFound: 'Маршрут не найден',
  malformedJson: 'Тело запроса не является корректным JSON',
  jsonTooDeep: (max: number) => `Слишком глубокая вложенность JSON: допускается не больше ${max} уровней массивов и объектов`,
  unsupportedMediaType: 'Ожидается тело запроса в формате application/json',
  methodNotAllowed: 'Метод не поддерживается для этого маршрута',
  tooManyConnections: 'Слишком много одновременных запросов с вашего адреса, повторите позже',
  validationFailed: 'Некорректные данные запроса',
  bodyNotObject: 'Тело запроса должно быть JSON-объектом: {"поле": значение, …}',
  unstorableText: (field: string) => `${field ? `${field}: ` : ''}текст содержит недопустимый символ (NUL или одиночный суррогат UTF-16)`,
  pathParameterInvalid: (name: string) => `${name}: некорректное значение в пути запроса`,
  timeZoneUnknown: 'Часовой пояс: такой пояс неизвестен, выберите пояс из списка, например «Москва»',
  metricsToken: 'Для /metrics нужен заголовок Authorization: Bearer с токеном метрик из настроек сервера',

  // The /trpc batch policy and the credential every authenticated route asks for.
  batchTooLarge: (max: number) => `В одном пакетном запросе /trpc можно передать не больше ${max} вызовов`,
  batchedAuthMutation: 'Регистрацию и вход нельзя объединять с другими вызовами в пакетный запрос /trpc: отправьте их отдельно',
  missingCredential: 'Требуется авторизация: передайте заголовок Authorization: Bearer <токен>',

  // CSV import of the shop's catalogue and of the knowledge base (neither feature depends on the other).
  csvUnreadable: (line: number | null) => `Не удалось прочитать CSV${line ? ` (строка ${line})` : ''}: проверьте кавычки и число столбцов`,
} as const;
