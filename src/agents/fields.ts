// An agent's fields as its owner sends them: zod only, so the dashboard page checks its forms with the
// schemas the API applies.
import { z } from 'zod';
import { agentsMessages } from './texts';

export const AGENT_TYPES = ['creator', 'service', 'ecommerce'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

/**
 * Why the agent's assistant answers no client, for the owner's agent page (machine-readable; the page
 * says it in Russian): `account_blocked`, the owner's account is blocked; `out_of_balance`, the balance could
 * not pay the model's last call (until an answer is paid again). Null in the read: it answers.
 */
export const AGENT_UNAVAILABLE_REASONS = ['account_blocked', 'out_of_balance'] as const;
export type AgentUnavailableReason = (typeof AGENT_UNAVAILABLE_REASONS)[number];

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._:@+-]*$/;

export const agentName = z
  .string({ error: agentsMessages.agentNameRequired })
  .trim()
  .min(1, agentsMessages.agentNameRequired)
  .max(100, agentsMessages.agentNameTooLong);
export const agentType = z.enum(AGENT_TYPES, { error: agentsMessages.agentTypeInvalid });
export const agentSystemPrompt = z.string().max(20_000, agentsMessages.agentPromptTooLong);
export const agentModel = z.string().trim().max(200, agentsMessages.agentModelInvalid).regex(MODEL_ID, agentsMessages.agentModelInvalid);

/** Clients' photos go to the model as images; the agent's model must take images. */
export const agentAcceptsImages = z
  .boolean({ error: agentsMessages.agentAcceptsImagesInvalid })
  .describe('Фото клиентов передаются модели как изображения (модель агента должна их принимать); false — клиенту вежливо отвечают, что фото ассистент не смотрит');

/** Voice messages VK sends without a transcript are transcribed through the gateway, billed to the owner. */
export const agentTranscribeVoice = z
  .boolean({ error: agentsMessages.agentAcceptsImagesInvalid })
  .describe(
    'Голосовые сообщения ВКонтакте без расшифровки ВК расшифровываются моделью распознавания речи за счёт владельца; false — клиента просят написать текстом',
  );

/** The transcription model; null or empty: the service's default (TRANSCRIPTION_MODEL). */
export const agentTranscriptionModel = z
  .union([agentModel, z.literal('').transform(() => null), z.null()])
  .describe('Модель распознавания речи (например openai/whisper-1); null — модель по умолчанию сервиса');

const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * When a person answers the agent's clients: days of the week (1 = Monday … 7 = Sunday), the day's start and
 * end in the agent's time zone (YCLIENTS_TIME_ZONE when not given). Null: not said — clients are promised
 * no time. One span a day, the same every working day: what a salon's sign on the door says.
 */
export const workingHoursInput = z
  .object({
    days: z
      .array(
        z
          .number({ error: agentsMessages.workingDaysInvalid })
          .int(agentsMessages.workingDaysInvalid)
          .min(1, agentsMessages.workingDaysInvalid)
          .max(7, agentsMessages.workingDaysInvalid),
        {
          error: agentsMessages.workingDaysInvalid,
        },
      )
      .min(1, agentsMessages.workingDaysInvalid)
      .max(7, agentsMessages.workingDaysInvalid)
      .transform((days) => [...new Set(days)].sort((a, b) => a - b)),
    from: z.string({ error: agentsMessages.workingTimeInvalid }).regex(CLOCK, agentsMessages.workingTimeInvalid).meta({ example: '10:00' }),
    to: z.string({ error: agentsMessages.workingTimeInvalid }).regex(CLOCK, agentsMessages.workingTimeInvalid).meta({ example: '19:00' }),
    timeZone: z
      .string({ error: agentsMessages.workingTimeZoneInvalid })
      .max(64, agentsMessages.workingTimeZoneInvalid)
      .refine(isTimeZone, agentsMessages.workingTimeZoneInvalid)
      .optional(),
  })
  .refine((h) => h.from < h.to, { message: agentsMessages.workingTimeOrder, path: ['to'] })
  .nullable()
  .describe('Рабочее время, когда клиентам отвечает человек: дни (1 — понедельник … 7 — воскресенье), с и до (ЧЧ:ММ), часовой пояс; null — не задано');

export type WorkingHours = { days: number[]; from: string; to: string; timeZone?: string };

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const createAgentInput = z.object({
  name: agentName,
  type: agentType,
  systemPrompt: agentSystemPrompt.optional(),
  model: agentModel.optional(),
  acceptsImages: agentAcceptsImages.optional(),
});

export const agentPatchInput = z.object({
  name: agentName.optional(),
  type: agentType.optional(),
  systemPrompt: agentSystemPrompt.optional(),
  model: agentModel.optional(),
  acceptsImages: agentAcceptsImages.optional(),
  transcribeVoice: agentTranscribeVoice.optional(),
  transcriptionModel: agentTranscriptionModel.optional(),
  workingHours: workingHoursInput.optional(),
});
