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
  noProviderAnswered: 'Ни один провайдер модели не смог ответить на запрос, повторите позже',
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
  modelVariantUnlisted: (model: string, base: string) =>
    `Модель ${model} не обслуживается: у этого варианта нет своей цены. Укажите ${base}`,
  modelUnpriced: (model: string) => `Модель ${model} не обслуживается: для неё не задана цена`,
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
  passwordTooLong: 'Пароль не может быть длиннее 1024 символов',
  adminPasswordRequired:
    'Этот адрес — адрес администратора сервиса: чтобы подтвердить его, задайте пароль учётной записи (не короче 6 символов). Все прежние сеансы завершатся',
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
  passwordResetSent:
    'Если такой e-mail зарегистрирован, мы отправили на него ссылку для сброса пароля. Ссылка действует 1 час',
  passwordResetUnavailable:
    'Сброс пароля по e-mail на этом сервере не настроен (нет почтового сервера): обратитесь к администратору сервиса',
  passwordResetLinkInvalid:
    'Ссылка для сброса пароля недействительна: она уже использована, устарела или заменена более новой. Запросите новую',
  tooManyPasswordResets: 'Слишком много запросов на сброс пароля, повторите позже',
  passwordResetMailFailed: 'Не удалось отправить письмо со ссылкой: почтовый сервер недоступен, повторите позже',
  currentPasswordWrong: 'Текущий пароль указан неверно',
  tooManyPasswordAttempts: 'Слишком много неудачных попыток ввести текущий пароль, повторите позже',
  passwordChanged: 'Пароль изменён. Остальные сеансы завершены',
  sessionsEnded: 'Все сеансы завершены: войдите заново',
  adminPasswordResetSent: (email: string) => `Ссылка для сброса пароля отправлена на ${email}`,
  adminSessionsEnded: 'Все сеансы пользователя завершены',
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
  knowledgeEntryNotFound: 'Запись базы знаний не найдена',
  knowledgeImportOneSource: 'Передайте что-то одно: содержимое CSV (столбцы title и content) или текст',
  knowledgeImportEmpty: 'Нет записей для импорта: в CSV нужны заголовок title,content и строки, в тексте — разделы, разделённые пустой строкой',
  knowledgeImportTooLarge: (max: number) => `За один раз можно импортировать не больше ${max} записей`,
  knowledgeCsvColumns: 'В CSV нужны столбцы title и content (или «заголовок» и «текст»)',
  knowledgeTooMany: (max: number) => `В базе знаний агента может быть не больше ${max} записей`,
  cartMixedCurrencies: 'В корзине товары в разных валютах: оформите их отдельными заказами',
  cartOverStock: (title: string, left: number) => `Товара «${title}» осталось ${left} шт.: уменьшите количество в корзине`,
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
  slotPast: 'Это время уже прошло: выберите другое из свободных',
  unknownSpecialist: (id: string) => `Специалист «${id}» не найден в настройках интеграции`,
  unknownService: (id: string) => `Услуга «${id}» не найдена в настройках интеграции`,

  // Agents.
  agentNotFound: 'Агент не найден',
  agentForbidden: 'Этот агент принадлежит другому пользователю',
  agentDeleted: 'Агент удалён',
  tooManyAgents: (max: number) => `Достигнут лимит агентов (${max}); удалите ненужного агента, чтобы создать нового`,
  agentTypeFixed: 'Тип агента нельзя изменить после создания',
  agentTypeInvalid: 'ожидается creator, service или ecommerce',
  agentNameRequired: 'обязательное поле',
  agentNameTooLong: 'не длиннее 100 символов',
  agentPromptTooLong: 'не длиннее 20000 символов',
  agentModelInvalid: 'ожидается вид <владелец>/<модель>, например openai/gpt-4o-mini',
  agentAcceptsImagesInvalid: 'ожидается true или false',
  workingDaysInvalid: 'ожидаются дни недели числами от 1 (понедельник) до 7 (воскресенье), хотя бы один',
  workingTimeInvalid: 'ожидается время в виде ЧЧ:ММ, например 10:00',
  workingTimeOrder: 'конец рабочего дня должен быть позже начала',
  workingTimeZoneInvalid: 'ожидается часовой пояс IANA, например Europe/Moscow',

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
  /** The sums as formatMoneyText writes them: «от 10,00 ₽ до 100 000,00 ₽». */
  topupAmountRange: (min: string, max: string) => `должна быть от ${min} до ${max}`,
  topupNotFound: 'Пополнение не найдено',
  topupPaymentUnavailable: 'Платёжный сервис ЮKassa сейчас недоступен: пополнение не создано, попробуйте позже',
  topupPaymentRejected: 'ЮKassa отклонила создание платежа: пополнение не создано, попробуйте позже или обратитесь в поддержку',
  topupPaymentDescription: (amount: string) => `Пополнение баланса на ${amount}`,
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
    `укажите ненулевую сумму (по модулю не больше ${max.toLocaleString('ru-RU')}) с точностью не более 9 знаков после запятой`,
  creditReasonRequired: 'укажите причину начисления (до 500 символов)',
  creditReferenceInvalid: 'укажите идентификатор начисления длиной от 1 до 200 символов',
  creditReferenceTaken: 'Ссылка операции: уже использована для другого начисления (другой пользователь или сумма)',
  creditBelowZero: (available: string) =>
    `Списание сделает баланс отрицательным: сейчас можно списать не больше ${available}. ` +
    'Деньги, зарезервированные под выполняемые запросы, списать нельзя: повторите позже',
  statsDateInvalid: 'ожидается дата в формате ГГГГ-ММ-ДД, например 2026-01-31',
  statsRangeInvalid: (maxDays: number) => `Период задан неверно: начало не позже конца и не длиннее ${maxDays} дней`,
  auditEmailTooBroad: 'Под этот фрагмент e-mail подходит слишком много пользователей: введите адрес точнее',
  auditActionInvalid: 'Неизвестное действие журнала',
  auditRangeInvalid: 'Период задан неверно: начало не позже конца',
  adminKeyRevoked: 'Ключ пользователя отозван',
  pricePatternInvalid:
    'укажите идентификатор модели (например, openai/gpt-4o-mini) или префикс со звёздочкой в конце (openai/*, *)',
  priceValueInvalid: (max: number) =>
    `число от 0 до ${max.toLocaleString('ru-RU')} с точностью не более 9 знаков после запятой`,
  priceNotFound: 'Цена для этого шаблона не задана',
  providerNameInvalid: 'от 1 до 100 символов',
  providerBaseUrlInvalid: 'http(s)-адрес без параметров, например https://api.openai.com/v1',
  providerApiKeyInvalid: 'печатные символы ASCII без пробелов, до 1000, или null, чтобы убрать ключ',
  providerTimeoutInvalid: 'целое число миллисекунд от 100 до 250000',
  providerNotFound: 'Провайдер не найден',
  providerDeleted: 'Провайдер удалён',
  providerBuiltIn: 'Встроенный провайдер default задаётся переменными окружения UPSTREAM_BASE_URL и UPSTREAM_API_KEY; здесь его можно только вернуть в работу (PATCH с пустым телом) после отключения',
  providerInUse: (patterns: string) => `Провайдер используется в маршрутах (${patterns}): сначала измените или удалите их`,
  routeProviderUnknown: 'в providerId укажите id существующего провайдера или default',
  routePriorityInvalid: 'priority — целое число от 0 до 1000 (меньше — раньше)',
  routeWeightInvalid: 'weight — целое число от 1 до 1000',
  routeModelInvalid: 'model — идентификатор модели у провайдера, до 200 печатных символов без пробелов',
  routeTargetsInvalid: (max: number) => `от 1 до ${max} провайдеров`,
  modelRouteNotFound: 'Маршрут для этого шаблона не задан',
  routeDeleted: 'Маршрут удалён',
  priceDeleted: 'Цена удалена',
  priceMultiplierInvalid: 'положительное число не больше 1000000',
  priceImportEmpty: 'перечислите идентификаторы моделей для импорта (не больше 2000)',

  // Balance and key-limit alerts.
  alertWebhookUrlInvalid:
    'Адрес вебхука: укажите адрес http:// или https:// без логина и пароля (до 2000 символов) или null, чтобы отключить вебхук',
  alertWebhookPrivate:
    'Адрес вебхука: адрес ведёт во внутреннюю сеть (localhost, частный или служебный IP-адрес): укажите адрес, доступный из интернета',
  alertWebhookUnknownHost: 'Адрес вебхука: такое имя хоста не найдено в DNS, проверьте адрес',
  alertWebhookSecretWithoutUrl: 'Новый секрет уведомлений: сначала укажите адрес вебхука — секрет подписывает его запросы',
  // Two-factor login (accounts/two-factor.ts).
  totpRequired: 'Введите код из приложения-аутентификатора (или один из кодов восстановления)',
  totpInvalid: 'Неверный или уже использованный код подтверждения',
  totpAlreadyEnabled: 'Двухфакторный вход уже включён; чтобы настроить заново, сначала отключите его',
  totpNotSetUp: 'Сначала начните настройку двухфакторного входа: отсканируйте новый QR-код',
  totpNotEnabled: 'Двухфакторный вход не включён',
  totpNeedsConfirmedAddress:
    'Двухфакторный вход для этого адреса можно включить только после подтверждения адреса: откройте ссылку из письма, отправленного на него, и задайте там пароль',
  totpDisabled: 'Двухфакторный вход отключён',
  tooManyTotpAttempts: 'Слишком много неверных кодов, повторите позже',
  // E-mail change (accounts/email-change.ts).
  wrongPassword: 'Неверный пароль',
  emailUnchanged: 'Это и есть ваш текущий e-mail',
  emailChangeSent: 'Мы отправили ссылку для подтверждения на новый адрес; она действует 1 час',
  emailChangeLinkInvalid: 'Ссылка недействительна: она устарела, уже использована или адрес сменили по другой ссылке',
  emailChanged: (email: string) => `E-mail изменён: теперь входите с адресом ${email}`,
  emailChangeMailFailed: 'Не удалось отправить письмо, повторите позже',
  emailChangeUnavailable: 'Смена e-mail недоступна: на сервере не настроена почта (SMTP_URL), обратитесь к оператору',
  tooManyEmailChanges: 'Слишком много попыток сменить e-mail, повторите позже',
} as const;

/** The blocked-account message, naming the operator's SUPPORT_CONTACT when one is set. */
export const accountBlockedMessage = (supportContact: string | undefined) =>
  supportContact ? `Учётная запись заблокирована: обратитесь в поддержку — ${supportContact}` : errorMessages.accountBlocked;
