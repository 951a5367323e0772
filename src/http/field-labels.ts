// Every input field of the dashboard API by the Russian name its form shows, in one table: a message
// about a field names it this way («ID сообщества: только цифры…»), never by its English key, which
// stays in the machine-readable part of the error (tRPC's error data `field`/`fields`). No imports, so the
// dashboard's form checks (web/src/validate.ts) use the same labels.

/** Fields whose name means the same thing in every form. */
export const fieldLabels: Record<string, string> = {
  // Accounts and keys.
  email: 'E-mail',
  password: 'Пароль',
  referralCode: 'Код приглашения',
  // Two-factor login and e-mail change.
  totpCode: 'Код подтверждения',
  code: 'Код',
  newEmail: 'Новый e-mail',
  token: 'Код из ссылки',
  name: 'Название',
  spendLimit: 'Лимит расходов',
  limitReset: 'Период лимита',
  expiresAt: 'Действует до',
  rpm: 'Запросов в минуту',
  tpm: 'Токенов в минуту',
  rpd: 'Запросов в сутки',
  cache: 'Кэш ответов',
  // Usage and lists.
  limit: 'Число записей на странице',
  cursor: 'Курсор страницы',
  from: 'Начало периода',
  to: 'Конец периода',
  keyId: 'Ключ',
  timeZone: 'Часовой пояс',
  format: 'Формат файла',
  status: 'Статус',
  search: 'Поиск по e-mail',
  targetId: 'Объект',
  // Path parameters.
  id: 'Идентификатор',
  agentId: 'Агент',
  productId: 'Товар',
  orderId: 'Заказ',
  // Agents.
  type: 'Тип',
  systemPrompt: 'Системный промпт',
  model: 'Модель',
  acceptsImages: 'Фото клиентов',
  transcribeVoice: 'Расшифровка голосовых',
  transcriptionModel: 'Модель распознавания речи',
  workingHours: 'Рабочее время',
  // VK community.
  groupId: 'ID сообщества',
  accessToken: 'Ключ доступа сообщества',
  secretKey: 'Секретный ключ',
  confirmationCode: 'Код подтверждения',
  // Telegram.
  botToken: 'Токен бота',
  userId: 'ID пользователя для уведомлений',
  channelId: 'Канал',
  // YCLIENTS.
  partnerToken: 'Токен партнёра YCLIENTS',
  login: 'Логин администратора',
  companyId: 'ID компании в YCLIENTS',
  syncEnabled: 'Синхронизация',
  slotCacheTtlMinutes: 'Кэш свободного времени, минут',
  reminderOffsetsMinutes: 'Напоминать за, часов',
  quietFrom: 'Тихие часы с',
  quietTo: 'Тихие часы до',
  reviewDelayMinutes: 'Просить оценку через, минут после визита',
  reviewLowScore: 'Низкая оценка — не выше',
  reviewUrl: 'Ссылка на отзывы о салоне',
  rebookDays: 'Предложить записаться снова через, дней',
  noShowMessage: 'Написать клиенту, который не пришёл',
  matchClientRecords: 'Узнавать записи клиента в YCLIENTS по телефону и имени',
  specialistMapping: 'Сопоставление специалистов',
  serviceMapping: 'Сопоставление услуг',
  date: 'Дата',
  specialistId: 'Специалист',
  serviceId: 'Услуга',
  datetime: 'Время записи',
  clientName: 'Имя клиента',
  clientPhone: 'Телефон клиента',
  // Shop.
  title: 'Название товара',
  description: 'Описание',
  priceMinor: 'Цена',
  currency: 'Валюта',
  available: 'В наличии',
  attributes: 'Характеристики',
  stock: 'Остаток',
  csv: 'Содержимое CSV',
  products: 'Товары',
  paymentLinkTemplate: 'Шаблон ссылки на оплату',
  rotateWebhookSecret: 'Новый секрет уведомлений',
  yookassaShopId: 'ID магазина ЮKassa',
  yookassaSecretKey: 'Секретный ключ ЮKassa',
  delivery: 'Способы доставки',
  unpaidReminderHours: 'Напоминание о неоплаченном заказе (часов)',
  yookassaReceipts: 'Чеки по 54-ФЗ',
  receiptVatCode: 'Ставка НДС в чеке',
  trackingNumber: 'Трек-номер',
  // Top-ups and administration.
  amount: 'Сумма',
  reason: 'Причина',
  reference: 'Ссылка операции',
  pattern: 'Шаблон модели',
  promptPerMillion: 'Запрос за 1M токенов',
  completionPerMillion: 'Ответ за 1M токенов',
  kind: 'Вид цены',
  perSecond: 'Секунда аудио',
  cachedPromptPerMillion: 'Запрос из кэша за 1M токенов',
  cacheWritePerMillion: 'Запись в кэш за 1M токенов',
  multiplier: 'Множитель',
  // Price groups.
  allowedModels: 'Доступные модели',
  isDefault: 'Группа по умолчанию',
  group: 'Группа цен',
  filter: 'Фильтр моделей',
  models: 'Модели',
  baseUrl: 'Адрес провайдера',
  apiKey: 'Ключ API провайдера',
  enabled: 'Включён',
  timeoutMs: 'Таймаут, мс',
  protocol: 'Протокол провайдера',
  probeModel: 'Модель для проверки',
  balanceUrl: 'Адрес баланса',
  balancePath: 'Путь к балансу в JSON',
  balanceThreshold: 'Порог баланса',
  targets: 'Провайдеры маршрута',
  costPrice: 'Стоимость у провайдера',
  // Keys' scope and dialogues.
  scope: 'Доступ ключа',
  text: 'Текст сообщения',
  dialogueId: 'Диалог',
  afterId: 'После сообщения',
  clientMessageId: 'Идентификатор сообщения',
  // Broadcasts and the funnel.
  requestId: 'Идентификатор отправки',
  broadcastId: 'Рассылка',
  weeks: 'Число недель',
  q: 'Поиск',
  // Knowledge base.
  content: 'Текст записи',
  entryId: 'Запись',
  query: 'Запрос',
  // Balance and key-limit alerts.
  lowBalanceThreshold: 'Порог баланса',
  keyLimitAlerts: 'Уведомления о лимитах ключей',
  webhookUrl: 'Адрес вебхука',
  // Statement, closing documents and requisites.
  month: 'Месяц',
  companyName: 'Название организации',
  inn: 'ИНН',
  kpp: 'КПП',
  ogrn: 'ОГРН',
  address: 'Адрес',
  bankName: 'Банк',
  bik: 'БИК',
  account: 'Расчётный счёт',
  correspondentAccount: 'Корреспондентский счёт',
  vatNote: 'Строка об НДС',
  vatRate: 'Ставка НДС',
  closingDocuments: 'Закрывающие документы',
  updStatus: 'Статус УПД',
  directorName: 'Руководитель',
  accountantName: 'Главный бухгалтер',
  // Bank transfer: счета and bank statements (operator).
  number: 'Номер счёта',
  paidOn: 'Дата оплаты',
  note: 'Примечание',
  importId: 'Загрузка выписки',
  payments: 'Платежи',
  invoiceNumber: 'Номер счёта',
  file: 'Файл выписки',
  // Saved cards and auto top-up.
  saveCard: 'Сохранить карту',
  threshold: 'Порог баланса',
  monthlyLimit: 'Лимит в месяц',
  // Organisations.
  role: 'Роль',
  keys: 'Ключи участника',
  transferTo: 'Кому передать ключи',
  // Promo campaigns (operator).
  codeCount: 'Число кодов',
  uses: 'Число активаций',
  registeredAfter: 'Для зарегистрированных после',
  // Stored secrets named in messages (a setting that cannot be decrypted), not sent by forms.
  webhookSecret: 'Секрет вебхука',
  userToken: 'Токен пользователя YCLIENTS',
};

/**
 * Where one English key is another field in another form, by the procedure's router (the first part of
 * its tRPC path: `agents.create` → `agents`).
 */
export const scopedFieldLabels: Record<string, Record<string, string>> = {
  agents: { name: 'Имя' },
  keys: { name: 'Название ключа' },
  booking: { password: 'Пароль администратора' },
  billing: { amount: 'Сумма пополнения' },
  promo: { code: 'Промокод' },
  adminPromotions: { name: 'Название акции', amount: 'Сумма за активацию', kind: 'Вид промокодов', code: 'Общий код', id: 'Акция' },
  invoices: { amount: 'Сумма счёта' },
  bankPayments: { userId: 'Учётная запись' },
  knowledge: { title: 'Заголовок', text: 'Текст для импорта' },
  adminPriceGroups: { name: 'Имя группы', title: 'Название группы' },
  organizations: { name: 'Название организации', userId: 'Участник', token: 'Код приглашения', id: 'Организация' },
  accountSecurity: { token: 'Ссылка для сброса пароля', currentPassword: 'Текущий пароль', newPassword: 'Новый пароль' },
};

/**
 * The label of a field path as a person reads it: the top field's label, then any deeper part (a
 * mapping's key, a row's number) after it. Null when no label is known.
 */
export function fieldLabel(path: readonly PropertyKey[], procedure?: string): string | null {
  const [top, ...rest] = path;
  if (typeof top !== 'string') return null;
  const scope = procedure?.split('.')[0];
  const label = (scope ? scopedFieldLabels[scope]?.[top] : undefined) ?? fieldLabels[top];
  if (!label) return null;
  // A row's number counts from 1; a nested field by its label; a mapping's key (the user's own text) as written.
  const deeper = rest.map((part) => (typeof part === 'number' ? `№${part + 1}` : (fieldLabels[String(part)] ?? `«${String(part)}»`)));
  return [label, ...deeper].join(', ');
}

/** The English path of a field as the API spells it: `specialistMapping.maria`, `products[2].title`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text ? `.${String(part)}` : String(part);
  }
  return text;
}

/** A field path as findUnstorableText writes it (`products.0.title`) by its label, or as it is when none is known. */
export function fieldNameOf(path: string, procedure?: string): string {
  if (!path) return '';
  const parts: PropertyKey[] = path.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  return fieldLabel(parts, procedure) ?? path;
}
