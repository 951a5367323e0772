// The booking integration's (YCLIENTS) Russian messages: settings, YCLIENTS' refusals and slot checks.
export const bookingMessages = {
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
} as const;
