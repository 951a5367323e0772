// /api/v1/booking/:agentId/… : the YCLIENTS integration of a Service agent, for its owner (JWT).
import { z } from 'zod';
import { isCalendarDay, isIsoInstant } from '../../http/date-input';
import { AppError } from '../../http/errors';
import { bookingMessages } from './texts';
import { agentProcedure } from '../../trpc/agent-guard';
import { router, inject } from '../../trpc/init';
import { bookingSettingsInput, bookingSettingsView } from './settings';
import { bookingSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ booking: use(bookingSlot).booking }));

const agentId = z.string().max(100);
const TAG = 'booking';
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

const day = z
  .string({ error: 'укажите дату в формате ГГГГ-ММ-ДД' })
  .meta({ format: 'date', example: '2026-12-01' })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'укажите дату в формате ГГГГ-ММ-ДД')
  .refine(isCalendarDay, 'такой даты нет');
const internalId = () => z.string({ error: 'обязательное поле' }).trim().min(1, 'обязательное поле').max(100);

const specialist = z.object({
  id: z.string(),
  staffId: z.number().int(),
  name: z.string(),
  specialization: z.string(),
  position: z.string().nullable(),
});

const service = z.object({
  id: z.string(),
  serviceId: z.number().int(),
  title: z.string(),
  priceMin: z.number(),
  priceMax: z.number(),
  durationMinutes: z.number().int().nullable(),
  specialistIds: z.array(z.string()),
});

const slot = z.object({ time: z.string(), datetime: z.string(), durationMinutes: z.number().int() });

export const appointmentInput = z.object({
  specialistId: internalId(),
  serviceId: internalId(),
  datetime: z
    .string({ error: 'обязательное поле' })
    .meta({ format: 'date-time', example: '2026-12-01T10:00:00+03:00' })
    .regex(ISO_WITH_OFFSET, 'укажите время в ISO 8601 со смещением, как в ответе /slots, например 2026-12-01T10:00:00+03:00')
    .refine(isIsoInstant, 'такого времени нет'),
  clientName: z.string({ error: 'обязательное поле' }).trim().min(1, 'укажите имя клиента').max(100),
  clientPhone: z.string({ error: 'обязательное поле' }).trim().min(1, 'укажите телефон клиента').max(40),
});

const appointment = z.object({
  id: z.string(),
  specialistId: z.string(),
  serviceId: z.string(),
  datetime: z.string(),
  clientName: z.string(),
  clientPhone: z.string(),
  status: z.literal('booked'),
  externalRecordId: z.string(),
  createdAt: z.string(),
});

/** The caller's own Service agent, or the error that says why not. */
const serviceAgentProcedure = agentProcedure.use(own).use(({ ctx, next }) => {
  if (ctx.agent.type !== 'service') throw new AppError('invalid_request_error', bookingMessages.bookingNotService);
  return next();
});

export const bookingRouter = router({
  getSettings: serviceAgentProcedure
    .meta({
      info: 'booking.settings',
      openapi: { method: 'GET', path: '/api/v1/booking/{agentId}/settings', tags: [TAG], summary: 'Настройки YCLIENTS (секреты не возвращаются)' },
    })
    .input(z.object({ agentId }))
    .output(bookingSettingsView)
    .query(({ ctx }) => ctx.booking.settings.read(ctx.agent.id)),

  putSettings: serviceAgentProcedure
    .meta({
      info: 'booking.settings',
      openapi: {
        method: 'PUT',
        path: '/api/v1/booking/{agentId}/settings',
        tags: [TAG],
        summary: 'Сохранить настройки YCLIENTS (проверяются входом в YCLIENTS)',
      },
    })
    .input(bookingSettingsInput.extend({ agentId }))
    .output(bookingSettingsView)
    .mutation(({ ctx, input }) => {
      const { agentId: _, ...settings } = input;
      return ctx.booking.settings.save(ctx.agent.id, settings);
    }),

  specialists: serviceAgentProcedure
    .meta({ info: 'booking.specialists', openapi: { method: 'GET', path: '/api/v1/booking/{agentId}/specialists', tags: [TAG], summary: 'Специалисты' } })
    .input(z.object({ agentId }))
    .output(z.object({ specialists: z.array(specialist) }))
    .query(async ({ ctx }) => ({ specialists: await ctx.booking.service.specialists(ctx.agent.id) })),

  services: serviceAgentProcedure
    .meta({ info: 'booking.services', openapi: { method: 'GET', path: '/api/v1/booking/{agentId}/services', tags: [TAG], summary: 'Услуги' } })
    .input(z.object({ agentId }))
    .output(z.object({ services: z.array(service) }))
    .query(async ({ ctx }) => ({ services: await ctx.booking.service.services(ctx.agent.id) })),

  slots: serviceAgentProcedure
    .meta({
      info: { key: 'booking.slots', query: '?date=YYYY-MM-DD&specialistId=&serviceId=' },
      openapi: { method: 'GET', path: '/api/v1/booking/{agentId}/slots', tags: [TAG], summary: 'Свободное время на день' },
    })
    .input(z.object({ agentId, date: day, specialistId: internalId(), serviceId: internalId() }))
    .output(z.object({ date: z.string(), specialistId: z.string(), serviceId: z.string(), slots: z.array(slot) }))
    .query(async ({ ctx, input }) => ({
      date: input.date,
      specialistId: input.specialistId,
      serviceId: input.serviceId,
      slots: await ctx.booking.service.slots(ctx.agent.id, input),
    })),

  createAppointment: serviceAgentProcedure
    .meta({
      info: 'booking.appointments',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/v1/booking/{agentId}/appointments',
        tags: [TAG],
        summary: 'Записать клиента (время проверяется в YCLIENTS; занятое → 409)',
        successDescription: 'Запись создана',
      },
    })
    .input(appointmentInput.extend({ agentId }))
    .output(appointment)
    .mutation(({ ctx, input }) => {
      const { agentId: _, ...booking } = input;
      return ctx.booking.service.book(ctx.agent.id, booking, { source: 'api' });
    }),
});
