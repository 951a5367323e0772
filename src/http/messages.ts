// Every Russian error message the API returns, in one table. Types and codes stay English.

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
  serverShuttingDown: 'Сервер перезапускается: ответ прерван, оплачена только полученная часть. Повторите запрос',

  billingUnavailable: 'Учёт баланса временно недоступен, повторите запрос через несколько секунд',
  keyLimitReached: (limit: string) => `Достигнут лимит расходов этого API-ключа (${limit}); измените лимит в настройках ключа`,
  billingBacklog: 'Сервис перегружен: учёт запросов не успевает записываться, повторите запрос через несколько секунд',

  // Transport.
  routeNotFound: 'Маршрут не найден',
  malformedJson: 'Тело запроса не является корректным JSON',
  unsupportedMediaType: 'Ожидается тело запроса в формате application/json',
  methodNotAllowed: 'Метод не поддерживается для этого маршрута',
  validationFailed: 'Некорректные данные запроса',

  // Accounts and credentials.
  emailTaken: 'Пользователь с таким e-mail уже зарегистрирован',
  invalidEmail: 'Укажите корректный e-mail',
  passwordTooShort: 'Пароль должен содержать не менее 6 символов',
  invalidCredentials: 'Неверный e-mail или пароль',
  tooManyLoginAttempts: 'Слишком много неудачных попыток входа, повторите позже',
  missingCredential: 'Требуется авторизация: передайте заголовок Authorization: Bearer <токен>',
  invalidToken: 'Недействительный или просроченный токен',
  invalidApiKey: 'Недействительный API-ключ',
  revokedApiKey: 'API-ключ отозван',
  expiredApiKey: 'Срок действия API-ключа истёк',
  jwtRequired: 'Для этого действия нужен токен входа (JWT), а не API-ключ',

  // API keys.
  keyNotFound: 'Ключ не найден',
  tooManyKeys: (max: number) => `Достигнут лимит API-ключей (${max}); отзовите ненужный ключ`,
  keyRevoked: 'Ключ отозван',
  keyWarning: 'Сохраните ключ сейчас: он показывается только один раз и больше не будет доступен',
  registered: 'Регистрация прошла успешно',

  // Social network community (VK).
  socialNotConfigured: 'Сообщество ВКонтакте не подключено: сохраните настройки агента',
  socialSecretsRequired: 'Укажите accessToken и secretKey: без них сообщество не подключить',
  vkUnavailable: 'ВКонтакте сейчас недоступен, попробуйте позже',
  vkTokenRejected: 'ВКонтакте не принял ключ доступа: проверьте, что он действующий и выдан этим сообществом',
  vkNoRights: 'У ключа доступа не хватает прав: включите права на сообщения и управление сообществом',
  vkServersLimit: 'В сообществе уже 10 серверов Callback API: удалите ненужный в настройках сообщества',
  vkRejected: (detail: string) => `ВКонтакте отклонил запрос: ${detail}`,
  vkGroupMismatch: 'Ключ доступа выдан другим сообществом: проверьте groupId',
  socialUnknownWebhook: 'Webhook не найден: у этого агента не подключено сообщество',
  socialBadSecret: 'Неверный секретный ключ события',
  socialNoEventId: 'В событии нет event_id',
  socialNoConfirmationCode: 'Код подтверждения ещё не известен: запросите его в настройках интеграции',

  // E-commerce.
  commerceNotEcommerce: 'Каталог и заказы доступны только агентам типа ecommerce',
  productNotFound: 'Товар не найден',
  orderNotFound: 'Заказ не найден',
  csvUnreadable: (line: number | null) => `Не удалось прочитать CSV${line ? ` (строка ${line})` : ''}: проверьте кавычки и число столбцов`,
  importEmpty: 'Нет товаров для импорта: передайте csv (с заголовком) или массив products',
  importTooLarge: (max: number) => `За один раз можно импортировать не больше ${max} товаров`,
  importOneSource: 'Передайте что-то одно: csv или products',
  cartMixedCurrencies: 'В корзине товары в разных валютах: оформите их отдельными заказами',
  paymentLinkTemplate: 'paymentLinkTemplate: ссылка https:// на страницу оплаты, в которой есть {orderNumber} или {orderId}',
  commerceNotConfigured: 'Оплата заказов не настроена: сохраните настройки магазина агента',
  paymentUnknownWebhook: 'Webhook оплаты не найден: у этого агента не настроен магазин',
  paymentBadSecret: 'Неверный секрет уведомления об оплате',
  paymentBadNotification: 'Уведомление об оплате не похоже на уведомление ЮKassa (type, event, object.id, object.amount)',

  // Booking system (YCLIENTS).
  bookingNotService: 'Интеграция с системой бронирования доступна только агентам типа service',
  bookingNotConfigured: 'Интеграция с YCLIENTS не настроена: сохраните настройки агента',
  bookingLoginRejected: 'YCLIENTS не принял данные входа: проверьте partner token, логин и пароль администратора',
  bookingCompanyNotFound: (companyId: number) => `Компания ${companyId} не найдена в YCLIENTS или недоступна этому администратору`,
  bookingAccessDenied: 'YCLIENTS отказал в доступе: проверьте partner token и права администратора',
  bookingNotFound: 'YCLIENTS не нашёл специалиста, услугу или компанию: проверьте companyId и сопоставления',
  bookingRejected: (detail: string) => `YCLIENTS отклонил запрос: ${detail}`,
  bookingUnavailable: 'Система бронирования YCLIENTS недоступна, попробуйте позже',
  bookingRateLimited: 'YCLIENTS просит повторить запрос позже',
  slotTaken: 'Это время уже занято или недоступно для записи: выберите другое из свободных',
  unknownSpecialist: (id: string) => `Специалист «${id}» не найден в настройках интеграции`,
  unknownService: (id: string) => `Услуга «${id}» не найдена в настройках интеграции`,

  // Agents.
  agentNotFound: 'Агент не найден',
  agentForbidden: 'Этот агент принадлежит другому пользователю',
  agentDeleted: 'Агент удалён',
  agentTypeFixed: 'Тип агента нельзя изменить после создания',
  agentTypeInvalid: 'type должен быть одним из: creator, service, ecommerce',
  agentNameRequired: 'Укажите имя агента',
  agentNameTooLong: 'Имя агента не может быть длиннее 100 символов',
  agentPromptTooLong: 'Системный промпт не может быть длиннее 20000 символов',
  agentModelInvalid: 'model должен иметь вид <владелец>/<модель>, например openai/gpt-4o-mini',

  // Messenger (Telegram).
  messengerBotTokenFormat: 'Неверный формат токена бота: ожидается <id бота>:<секрет>, как его выдаёт @BotFather',
  messengerBotTokenRequired: 'Укажите botToken: токен бота, выданный @BotFather',
  messengerBotTokenRejected: 'Telegram не принял токен бота: проверьте его в @BotFather',
  messengerUserIdInvalid: 'userId должен быть числовым идентификатором чата Telegram (бот подскажет его в ответ на /start)',
  messengerChannelIdInvalid: 'channelId должен быть именем канала, начинающимся с @ (5–32 символа: латиница, цифры, _), или числовым идентификатором',
  messengerTelegramUnavailable: 'Telegram недоступен или не ответил вовремя, повторите позже',
  messengerWebhookRejected: (detail: string) => `Telegram не принял адрес вебхука: ${detail}`,
  messengerBadSecret: 'Неверный секрет вебхука',
  messengerUnknownWebhook: 'Вебхук для этого агента не настроен',
  messengerBadUpdate: 'Ожидается объект Update Telegram с целым update_id',
  messengerNotConfiguredRelay: 'Мессенджер агента не настроен',

  // Top-ups (YooKassa), and shops taking payments through their own YooKassa account.
  topupsDisabled: 'Пополнение баланса не настроено: платёжный сервис ЮKassa не подключён',
  topupAmountInvalid: 'amount: укажите сумму числом в валюте баланса, не больше двух знаков после запятой (например, 500 или 99.90)',
  topupAmountRange: (min: string, max: string, currency: string) => `amount: сумма пополнения должна быть от ${min} до ${max} ${currency}`,
  topupNotFound: 'Пополнение не найдено',
  topupPaymentUnavailable: 'Платёжный сервис ЮKassa сейчас недоступен: пополнение не создано, попробуйте позже',
  topupPaymentRejected: 'ЮKassa отклонила создание платежа: пополнение не создано, попробуйте позже или обратитесь в поддержку',
  topupPaymentDescription: (amount: string, currency: string) => `Пополнение баланса на ${amount} ${currency}`,
  topupReceiptItem: 'Пополнение баланса',
  yookassaNotificationsDisabled: 'Уведомления ЮKassa не принимаются: пополнение баланса не настроено',
  yookassaBadNotification: 'Уведомление не похоже на уведомление ЮKassa: нужны type "notification", event и object.id',
  yookassaVerifyUnavailable: 'ЮKassa недоступна: уведомление не проверено, оно будет принято при повторной доставке',
  orderPaymentDescription: (number: string) => `Оплата заказа ${number}`,
  yookassaShopIdInvalid: 'yookassaShopId: идентификатор магазина ЮKassa (shopId) — число из личного кабинета, или null, чтобы отключить',
  yookassaSecretKeyInvalid: 'yookassaSecretKey: секретный ключ ЮKassa из раздела «Интеграция» личного кабинета, без пробелов',
  yookassaSecretKeyRequired: 'Укажите yookassaSecretKey: для нового идентификатора магазина ЮKassa нужен его секретный ключ',
  yookassaShopIdRequired: 'Укажите yookassaShopId вместе с yookassaSecretKey',
  yookassaSecretKeyUnreadable: (detail: string) => `${detail}. Сохраните настройки магазина с yookassaSecretKey заново`,

  // Administration.
  accountBlocked: 'Учётная запись заблокирована: обратитесь в поддержку',
  adminOnly: 'Раздел доступен только администраторам',
  adminUserNotFound: 'Пользователь не найден',
  adminCannotBlockSelf: 'Нельзя заблокировать собственную учётную запись',
  creditAmountInvalid: (max: number) =>
    `amount: укажите ненулевую сумму (по модулю не больше ${max}) с точностью не более 9 знаков после запятой`,
  creditReasonRequired: 'reason: укажите причину начисления (до 500 символов)',
  creditReferenceInvalid: 'reference: укажите идентификатор начисления длиной от 1 до 200 символов',
  creditReferenceTaken: 'Этот reference уже использован для другого начисления (другой пользователь или сумма)',
  creditBelowZero: (available: string, currency: string) =>
    `Списание сделает баланс отрицательным: сейчас можно списать не больше ${available} ${currency}. ` +
    'Деньги, зарезервированные под выполняемые запросы, списать нельзя: повторите позже',
  statsDateInvalid: 'ожидается дата в формате ГГГГ-ММ-ДД, например 2026-01-31',
  statsRangeInvalid: (maxDays: number) => `Период задан неверно: from не позже to и не длиннее ${maxDays} дней`,
  pricePatternInvalid:
    'pattern: укажите идентификатор модели (например, openai/gpt-4o-mini) или префикс со звёздочкой в конце (openai/*, *)',
  priceValueInvalid: (max: number) =>
    `цена за 1M токенов: число от 0 до ${max} с точностью не более 9 знаков после запятой`,
  priceNotFound: 'Цена для этого шаблона не задана',
  priceDeleted: 'Цена удалена',
  priceMultiplierInvalid: 'multiplier: положительное число не больше 1000000',
  priceImportEmpty: 'models: перечислите идентификаторы моделей для импорта (не больше 2000)',
} as const;
