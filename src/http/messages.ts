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
  upstreamAnswerTooLarge: 'Сервис модели прислал слишком большой ответ',
  internal: 'Внутренняя ошибка сервера',
  serviceUnavailable: 'Сервис временно недоступен, повторите запрос через несколько секунд',
  idempotencyKeyInvalid: 'Idempotency-Key: от 1 до 255 печатных символов ASCII без пробелов',
  idempotencyKeyReused: 'Idempotency-Key уже использован с другим телом запроса: для нового запроса нужен новый ключ',
  idempotencyInFlight: (requestId: string) =>
    `Запрос с этим Idempotency-Key ещё выполняется (request id ${requestId}): повторите позже`,
  idempotencyStream: (requestId: string) =>
    `Запрос с этим Idempotency-Key уже выполнен (request id ${requestId}); потоковый ответ повторить нельзя`,
  responseNotFound: 'Ответ с таким id не найден',
  metricsToken: 'Для /metrics нужен заголовок Authorization: Bearer <METRICS_TOKEN>',
  serverShuttingDown: 'Сервер перезапускается: ответ прерван, оплачена только полученная часть. Повторите запрос',

  billingUnavailable: 'Учёт баланса временно недоступен, повторите запрос через несколько секунд',
  keyLimitReached: (limit: string) => `Достигнут лимит расходов этого API-ключа (${limit}); измените лимит в настройках ключа`,
  billingBacklog: 'Сервис перегружен: учёт запросов не успевает записываться, повторите запрос через несколько секунд',

  // Transport.
  routeNotFound: 'Маршрут не найден',
  modelNotFound: 'Модель не найдена в каталоге',
  malformedJson: 'Тело запроса не является корректным JSON',
  jsonTooDeep: (max: number) => `Слишком глубокая вложенность JSON: допускается не больше ${max} уровней массивов и объектов`,
  unsupportedMediaType: 'Ожидается тело запроса в формате application/json',
  methodNotAllowed: 'Метод не поддерживается для этого маршрута',
  tooManyConnections: 'Слишком много одновременных запросов с вашего адреса, повторите позже',
  validationFailed: 'Некорректные данные запроса',
  bodyNotObject: 'Тело запроса должно быть JSON-объектом: {"поле": значение, …}',
  unstorableText: (field: string) =>
    `${field ? `${field}: ` : ''}текст содержит недопустимый символ (NUL или одиночный суррогат UTF-16)`,
  pathParameterInvalid: (name: string) => `${name}: некорректное значение в пути запроса`,
  timeZoneUnknown: 'Часовой пояс: этот пояс неизвестен базе данных, укажите действующий пояс IANA, например Europe/Moscow',

  // Accounts and credentials.
  emailTaken: 'Пользователь с таким e-mail уже зарегистрирован',
  invalidEmail: 'Укажите корректный e-mail',
  passwordTooShort: 'Пароль должен содержать не менее 6 символов',
  invalidCredentials: 'Неверный e-mail или пароль',
  tooManyLoginAttempts: 'Слишком много неудачных попыток входа, повторите позже',
  tooManyRegistrations: 'Слишком много регистраций с вашего адреса, повторите позже',
  registeredVerifyEmail:
    'Регистрация прошла успешно. Мы отправили письмо со ссылкой для подтверждения e-mail: стартовый бонус будет начислен, когда вы перейдёте по ней',
  verificationLinkInvalid:
    'Ссылка подтверждения недействительна: она уже использована, устарела или скопирована не полностью. Запросите новую в панели',
  verificationSent: 'Письмо со ссылкой для подтверждения e-mail отправлено',
  verificationNotRequired: 'Подтверждение e-mail на этом сервере не требуется',
  emailAlreadyVerified: 'E-mail уже подтверждён',
  tooManyVerificationMails: 'Слишком много писем подтверждения, повторите позже',
  verificationMailFailed: 'Не удалось отправить письмо: почтовый сервер недоступен, повторите позже',
  batchTooLarge: (max: number) => `В одном пакетном запросе /trpc можно передать не больше ${max} вызовов`,
  batchedAuthMutation: 'Регистрацию и вход нельзя объединять с другими вызовами в пакетный запрос /trpc: отправьте их отдельно',
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
  keyScopeOwnUsage:
    'Этот API-ключ видит только своё использование: для всего аккаунта войдите в панель (JWT) или создайте ключ с scope: "account"',
  registered: 'Регистрация прошла успешно',

  // Social network community (VK).
  socialNotConfigured: 'Сообщество ВКонтакте не подключено: сохраните настройки агента',
  socialSecretsRequired: 'Укажите ключ доступа сообщества и секретный ключ: без них сообщество не подключить',
  vkUnavailable: 'ВКонтакте сейчас недоступен, попробуйте позже',
  vkTokenRejected: 'ВКонтакте не принял ключ доступа: проверьте, что он действующий и выдан этим сообществом',
  vkNoRights: 'У ключа доступа не хватает прав: включите права на сообщения и управление сообществом',
  vkServersLimit: 'В сообществе уже 10 серверов Callback API: удалите ненужный в настройках сообщества',
  vkRejected: (detail: string) => `ВКонтакте отклонил запрос: ${detail}`,
  vkGroupMismatch: 'Ключ доступа выдан другим сообществом: проверьте ID сообщества',
  socialUnknownWebhook: 'Webhook не найден: у этого агента не подключено сообщество',
  socialBadSecret: 'Неверный секретный ключ события',
  socialNoEventId: 'В событии нет event_id',
  socialNoConfirmationCode: 'Код подтверждения ещё не известен: запросите его в настройках интеграции',

  // E-commerce.
  commerceNotEcommerce: 'Каталог и заказы доступны только агентам типа ecommerce',
  productNotFound: 'Товар не найден',
  orderNotFound: 'Заказ не найден',
  csvUnreadable: (line: number | null) => `Не удалось прочитать CSV${line ? ` (строка ${line})` : ''}: проверьте кавычки и число столбцов`,
  importEmpty: 'Нет товаров для импорта: передайте содержимое CSV (с заголовком) или список товаров',
  importTooLarge: (max: number) => `За один раз можно импортировать не больше ${max} товаров`,
  importOneSource: 'Передайте что-то одно: содержимое CSV или список товаров',
  cartMixedCurrencies: 'В корзине товары в разных валютах: оформите их отдельными заказами',
  paymentLinkTemplate: 'ссылка https:// на страницу оплаты, в которой есть {orderNumber} или {orderId}',
  commerceNotConfigured: 'Оплата заказов не настроена: сохраните настройки магазина агента',
  paymentUnknownWebhook: 'Webhook оплаты не найден: у этого агента не настроен магазин',
  paymentBadSecret: 'Неверный секрет уведомления об оплате',
  paymentUntrustedSender: 'Уведомление об оплате пришло не с адреса ЮKassa',
  paymentBadNotification: 'Уведомление об оплате не похоже на уведомление ЮKassa (type, event, object.id, object.amount)',

  // Booking system (YCLIENTS).
  bookingNotService: 'Интеграция с системой бронирования доступна только агентам типа service',
  bookingNotConfigured: 'Интеграция с YCLIENTS не настроена: сохраните настройки агента',
  bookingLoginRejected: 'YCLIENTS не принял данные входа: проверьте токен партнёра, логин и пароль администратора',
  bookingCompanyNotFound: (companyId: number) => `Компания ${companyId} не найдена в YCLIENTS или недоступна этому администратору`,
  bookingAccessDenied: 'YCLIENTS отказал в доступе: проверьте токен партнёра и права администратора',
  bookingNotFound: 'YCLIENTS не нашёл специалиста, услугу или компанию: проверьте ID компании и сопоставления',
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
  agentTypeInvalid: 'ожидается creator, service или ecommerce',
  agentNameRequired: 'обязательное поле',
  agentNameTooLong: 'не длиннее 100 символов',
  agentPromptTooLong: 'не длиннее 20000 символов',
  agentModelInvalid: 'ожидается вид <владелец>/<модель>, например openai/gpt-4o-mini',

  // Messenger (Telegram).
  messengerBotTokenFormat: 'Неверный формат токена бота: ожидается <id бота>:<секрет>, как его выдаёт @BotFather',
  messengerBotTokenRequired: 'Токен бота: укажите токен, выданный @BotFather',
  messengerBotTokenRejected: 'Telegram не принял токен бота: проверьте его в @BotFather',
  messengerUserIdInvalid: 'ожидается числовой идентификатор чата Telegram (бот подскажет его в ответ на /start)',
  messengerChannelIdInvalid: 'ожидается имя канала, начинающееся с @ (5–32 символа: латиница, цифры, _), или числовой идентификатор',
  messengerTelegramUnavailable: 'Telegram недоступен или не ответил вовремя, повторите позже',
  messengerWebhookRejected: (detail: string) => `Telegram не принял адрес вебхука: ${detail}`,
  messengerBadSecret: 'Неверный секрет вебхука',
  messengerUnknownWebhook: 'Вебхук для этого агента не настроен',
  messengerBadUpdate: 'Ожидается объект Update Telegram с целым update_id',
  messengerNotConfiguredRelay: 'Мессенджер агента не настроен',

  // Top-ups (YooKassa), and shops taking payments through their own YooKassa account.
  topupsDisabled: 'Пополнение баланса не настроено: платёжный сервис ЮKassa не подключён',
  topupAmountInvalid: 'укажите сумму числом в валюте баланса, не больше двух знаков после запятой (например, 500 или 99.90)',
  topupAmountRange: (min: string, max: string, currency: string) => `должна быть от ${min} до ${max} ${currency}`,
  topupNotFound: 'Пополнение не найдено',
  topupPaymentUnavailable: 'Платёжный сервис ЮKassa сейчас недоступен: пополнение не создано, попробуйте позже',
  topupPaymentRejected: 'ЮKassa отклонила создание платежа: пополнение не создано, попробуйте позже или обратитесь в поддержку',
  topupPaymentDescription: (amount: string, currency: string) => `Пополнение баланса на ${amount} ${currency}`,
  topupReceiptItem: 'Пополнение баланса',
  yookassaNotificationsDisabled: 'Уведомления ЮKassa не принимаются: пополнение баланса не настроено',
  yookassaBadNotification: 'Уведомление не похоже на уведомление ЮKassa: нужны type "notification", event и object.id',
  yookassaBadPaymentId: 'В уведомлении не идентификатор платежа ЮKassa: ожидается 36 символов из шестнадцатеричных цифр и дефисов',
  yookassaNotificationsThrottled: 'Слишком много уведомлений ЮKassa с вашего адреса, повторите позже',
  topupTooManyPending: (max: number) =>
    `Достигнут лимит неоплаченных пополнений (${max}): оплатите одно из них или дождитесь, пока ЮKassa отменит неоплаченные`,
  yookassaVerifyUnavailable: 'ЮKassa недоступна: уведомление не проверено, оно будет принято при повторной доставке',
  orderPaymentDescription: (number: string) => `Оплата заказа ${number}`,
  yookassaShopIdInvalid: 'идентификатор магазина ЮKassa (shopId) — число из личного кабинета, или null, чтобы отключить',
  yookassaSecretKeyInvalid: 'секретный ключ ЮKassa из раздела «Интеграция» личного кабинета, без пробелов',
  yookassaSecretKeyRequired: 'Секретный ключ ЮKassa: укажите его, для нового идентификатора магазина нужен его секретный ключ',
  yookassaShopIdRequired: 'ID магазина ЮKassa: укажите его вместе с секретным ключом ЮKassa',
  yookassaSecretKeyUnreadable: (detail: string) => `${detail}. Сохраните настройки магазина с секретным ключом ЮKassa заново`,

  // The owner's inbox of dialogues.
  dialogueNotFound: 'Диалог не найден',
  dialogueHeldByOther: (name: string | null) => `Диалог уже ведёт ${name ?? 'другой оператор'}: перехватить его можно, когда он вернёт диалог ассистенту`,
  dialogueReplyEmpty: 'text: напишите текст ответа',
  dialogueClientDenied: 'Клиент запретил сообщения от сообщества: ответ не отправлен',
  dialogueNoChannel: 'Сообщество ВКонтакте агента не подключено: ответ не отправлен',
  resultsPeriodInvalid: (maxDays: number) => `Период задан неверно: from раньше to и не длиннее ${maxDays} дней`,

  // Administration.
  accountBlocked: 'Учётная запись заблокирована: обратитесь в поддержку',
  adminOnly: 'Раздел доступен только администраторам',
  adminUserNotFound: 'Пользователь не найден',
  adminCannotBlockSelf: 'Нельзя заблокировать собственную учётную запись',
  creditAmountInvalid: (max: number) =>
    `укажите ненулевую сумму (по модулю не больше ${max}) с точностью не более 9 знаков после запятой`,
  creditReasonRequired: 'укажите причину начисления (до 500 символов)',
  creditReferenceInvalid: 'укажите идентификатор начисления длиной от 1 до 200 символов',
  creditReferenceTaken: 'Ссылка операции: уже использована для другого начисления (другой пользователь или сумма)',
  creditBelowZero: (available: string, currency: string) =>
    `Списание сделает баланс отрицательным: сейчас можно списать не больше ${available} ${currency}. ` +
    'Деньги, зарезервированные под выполняемые запросы, списать нельзя: повторите позже',
  statsDateInvalid: 'ожидается дата в формате ГГГГ-ММ-ДД, например 2026-01-31',
  statsRangeInvalid: (maxDays: number) => `Период задан неверно: начало не позже конца и не длиннее ${maxDays} дней`,
  pricePatternInvalid:
    'укажите идентификатор модели (например, openai/gpt-4o-mini) или префикс со звёздочкой в конце (openai/*, *)',
  priceValueInvalid: (max: number) =>
    `число от 0 до ${max} с точностью не более 9 знаков после запятой`,
  priceNotFound: 'Цена для этого шаблона не задана',
  priceDeleted: 'Цена удалена',
  priceMultiplierInvalid: 'положительное число не больше 1000000',
  priceImportEmpty: 'перечислите идентификаторы моделей для импорта (не больше 2000)',
} as const;
