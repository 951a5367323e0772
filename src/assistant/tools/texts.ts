// What the tools say: errors the model reads in a tool result (so it can correct itself or tell the
// client), and the short summaries the owner reads in the inbox transcript. Russian, like every text of
// the assistant (house rule 9); the tools' descriptions stay with the tools they describe.
import { formatSlot } from '../texts';

export const toolTexts = {
  // Errors of the loop itself.
  unknownTool: (name: string, known: string[]) => `Инструмента «${name}» нет. Доступны: ${known.join(', ') || 'никаких'}.`,
  argumentsNotJson: 'Аргументы вызова должны быть JSON-объектом.',
  namelessCall: (known: string[]) => `В вызове не указано имя инструмента. Доступны: ${known.join(', ') || 'никаких'}.`,
  /** How a call without a name stands in the owner's transcript. */
  namelessToolName: '(без имени)',
  tooManyCalls: (max: number) => `Не выполнено: в одном ответе можно вызвать не больше ${max} инструментов. Дождитесь результатов и вызовите нужные снова.`,
  toolFailed: 'Инструмент сейчас не сработал. Попробуйте ещё раз позже или передайте диалог сотруднику (escalate_to_human).',
  required: (field: string) => `Не указан обязательный аргумент ${field}.`,
  notString: (field: string) => `Аргумент ${field} должен быть строкой.`,
  badDate: 'Аргумент date: укажите дату в виде YYYY-MM-DD, например 2026-12-01.',
  badDatetime: 'Аргумент datetime: укажите время так, как его вернул find_slots, например 2026-12-01T15:00:00+03:00.',
  badPhone: 'Аргумент clientPhone: нужен телефон клиента, например +7 916 123-45-67. Спросите его у клиента.',
  badName: 'Аргумент clientName: нужно имя клиента. Спросите его у клиента.',

  // Booking.
  unknownService: (id: string) => `Услуги «${id}» нет. Возьмите serviceId из list_services.`,
  unknownSpecialist: (id: string) => `Специалиста «${id}» нет. Возьмите specialistId из list_specialists.`,
  specialistWithoutService: (specialist: string, service: string) => `Специалист «${specialist}» не оказывает услугу «${service}».`,
  chooseService: 'Укажите serviceId: свободное время зависит от услуги. Список услуг ниже.',
  slotTaken: 'Это время уже занято. Предложите клиенту одно из ближайших свободных (nextFreeTimes).',
  slotPassed: 'Это время уже прошло. Предложите клиенту одно из ближайших свободных (nextFreeTimes).',
  bookingLimit: (max: number) => `У клиента уже ${max} предстоящих записи — больше записывать нельзя. Предложите перенести или отменить одну из них (appointments).`,
  // Told to the model with an act the system has already announced to the client.
  announcedNote: 'Клиенту уже отправлено сообщение об этом (время, специалист). Не повторяйте его целиком — коротко ответьте на остальное.',
  notOwnAppointment: 'Такой записи у этого клиента нет. Его записи показывает list_my_appointments.',

  // What the model is told of the client (client-context.ts).
  factAppointment: (service: string, specialist: string, datetime: string, id: string) =>
    `Предстоящая запись: ${service}, ${specialist}, ${formatSlot(datetime)} (appointmentId ${id}).`,

  // Summaries for the inbox.
  summaryError: (message: string) => `ошибка: ${message.length > 160 ? `${message.slice(0, 159)}…` : message}`,
  summaryServices: (n: number) => `услуг: ${n}`,
  summarySpecialists: (n: number) => `специалистов: ${n}`,
  summarySlots: (date: string, n: number) => `${date}: свободных окон ${n}`,
  summaryBooked: (service: string, specialist: string, datetime: string, name: string) => `записан(а) ${name}: ${service}, ${specialist}, ${formatSlot(datetime)}`,
  summaryTaken: (datetime: string, n: number) => `${formatSlot(datetime)} занято; предложено других окон: ${n}`,
  summaryPassed: (datetime: string, n: number) => `${formatSlot(datetime)} уже прошло; предложено других окон: ${n}`,
  summaryMyAppointments: (n: number) => `записей клиента: ${n}`,
  summaryCanceled: (datetime: string) => `запись на ${formatSlot(datetime)} отменена`,
  summaryBookingLimit: (max: number) => `запись отклонена: у клиента уже ${max} предстоящих`,
  summaryCancelRefused: 'отмена отклонена: не запись этого клиента',
  summaryEscalated: (reason: string) => `передано сотруднику: ${reason}`,
  summaryAskedPhone: (reason: string) => `спрошен телефон, чтобы передать сотруднику: ${reason}`,
} as const;
