// What the reschedule_appointment tool says: to the model (errors), to the owner (the inbox's summary) and,
// through the system rather than the model, to the client (ToolResult.announce). Russian (house rule 9).
import { formatSlot } from '../texts';

export const rescheduleTexts = {
  description:
    'Перенести запись клиента на другое время (и при необходимости к другому специалисту) одной операцией: запись меняется на месте, поэтому новое время может пересекаться со старым. appointmentId — из list_my_appointments, datetime — время из find_slots или названное клиентом, с часовым поясом (например 2026-12-01T11:30:00+03:00). Не отменяйте и не создавайте запись заново. О переносе клиенту сообщит система.',
  argAppointmentId: 'appointmentId из list_my_appointments',
  argDatetime: 'Новое время, например 2026-12-01T11:30:00+03:00',
  argSpecialistId: 'specialistId нового специалиста (необязательно; по умолчанию тот же)',
  // The model reads these.
  slotTaken: 'Это время занято другой записью. Предложите клиенту одно из ближайших свободных (nextFreeTimes); запись осталась на прежнем времени.',
  slotPassed: 'Это время уже прошло. Предложите клиенту одно из ближайших свободных (nextFreeTimes); запись осталась на прежнем времени.',
  // The inbox.
  summaryRescheduled: (before: string, after: string) => `запись перенесена: ${formatSlot(before)} → ${formatSlot(after)}`,
  summaryRefused: (datetime: string) => `перенос на ${formatSlot(datetime)} не удался: время занято или прошло`,
  // The client, from the system.
  announce: (d: { service: string; specialist: string; before: string; after: string }) =>
    `Запись перенесена: ${d.service}, ${d.specialist}, ${formatSlot(d.after)} (было ${formatSlot(d.before)}).`,
} as const;
