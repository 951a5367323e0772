// What the dialogue routes accept and answer, as zod schemas: one definition for validation, the typed
// client and the OpenAPI document.
import { z } from 'zod';
import { isoInstantInput } from '../http/date-input';

export const DIALOGUE_STATES = ['bot', 'operator', 'escalated', 'closed'] as const;
export type DialogueState = (typeof DIALOGUE_STATES)[number];

const agentId = z.string().max(100);
const dialogueId = z.string().max(100);
export const dialoguePath = z.object({ agentId, dialogueId });

export const dialogueListInput = z.object({
  agentId,
  state: z
    .enum(DIALOGUE_STATES)
    .optional()
    .meta({ description: 'bot — отвечает ассистент; escalated — ждёт оператора; operator — ведёт оператор; closed — клиент запретил сообщения' }),
  q: z.string().max(200).optional().meta({ description: 'Поиск по тексту сообщений, имени, телефону и VK id клиента' }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(300).optional(),
});
export type DialogueListQuery = Omit<z.output<typeof dialogueListInput>, 'agentId'>;

/** The owner's one inbox across all their agents: the same filters as an agent's list, plus the agent. */
export const inboxInput = dialogueListInput.extend({
  agentId: agentId.optional().meta({ description: 'Только диалоги этого агента (агент должен быть вашим)' }),
});
export type InboxQuery = z.output<typeof inboxInput>;

export const transcriptInput = dialoguePath.extend({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(300).optional(),
  afterId: z.coerce
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .meta({ description: 'Только реплики новее этой (id), для обновления открытой переписки' }),
});
export type TranscriptQuery = Omit<z.output<typeof transcriptInput>, 'agentId' | 'dialogueId'>;

export const replyInput = dialoguePath.extend({
  text: z.string().trim().min(1).max(4000),
  clientMessageId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,100}$/)
    .meta({ description: 'Идентификатор ответа, созданный клиентом (например, UUID): повтор запроса с ним не отправит сообщение второй раз' }),
});

export const noteInput = dialoguePath.extend({
  text: z.string().trim().min(1, 'напишите текст заметки').max(4000, 'не длиннее 4000 символов'),
});

const quickReplyFields = {
  title: z.string().trim().min(1, 'обязательное поле').max(100, 'не длиннее 100 символов'),
  text: z.string().trim().min(1, 'обязательное поле').max(4000, 'не длиннее 4000 символов'),
};
export const quickReplyInput = z.object(quickReplyFields);
export const quickReplyPatch = z.object({ id: z.string().max(100), title: quickReplyFields.title.optional(), text: quickReplyFields.text.optional() });
export const quickReplyView = z.object({ id: z.string(), title: z.string(), text: z.string(), createdAt: z.string(), updatedAt: z.string() });
export type QuickReplyView = z.output<typeof quickReplyView>;

export const releasePreview = z.object({
  text: z
    .string()
    .nullable()
    .meta({ description: 'Что получит клиент, когда диалог вернут ассистенту; null — ему ничего не отправится (например, он запретил сообщения)' }),
});

export const resultsInput = z.object({
  agentId,
  from: isoInstantInput.optional(),
  to: isoInstantInput.optional(),
});

const author = z.enum(['client', 'assistant', 'operator']);
/**
 * A transcript turn may also be a tool the model called (its name in `toolName`, the result's summary as text)
 * or the owner's internal note (`note`: never sent to the client).
 */
const turnAuthor = z.enum(['client', 'assistant', 'operator', 'tool', 'note']);

export const dialogueView = z.object({
  id: z.string(),
  channel: z.string(),
  client: z.object({ vkUserId: z.number().int().nullable(), name: z.string().nullable(), phone: z.string().nullable() }),
  state: z.enum(DIALOGUE_STATES),
  heldBy: z.object({ name: z.string(), byYou: z.boolean(), since: z.string().nullable() }).nullable(),
  lastMessage: z.object({ author, text: z.string(), at: z.string() }).nullable(),
  unread: z.number().int(),
  waitingSince: z.string().nullable().meta({ description: 'Для state = escalated: с какого момента клиент ждёт человека (передача оператору)' }),
  lastMessageAt: z.string().nullable(),
  createdAt: z.string(),
});

export const inboxItemView = dialogueView.extend({ agent: z.object({ id: z.string(), name: z.string() }) });

export const turnView = z.object({
  id: z.number().int(),
  author: turnAuthor,
  text: z.string(),
  at: z.string(),
  operatorName: z.string().nullable(),
  toolName: z.string().nullable().meta({ description: 'Для author = tool: какой инструмент вызвала модель (text — краткий итог)' }),
  buttons: z
    .array(z.array(z.string()))
    .nullable()
    .meta({ description: 'Кнопки под сообщением ассистента, по рядам, как их видел клиент (меню, специалисты, время)' }),
  tap: z.boolean().meta({ description: 'Для author = client: клиент нажал кнопку (text — её надпись), а не написал сам' }),
  unsent: z.boolean().meta({ description: 'Для author = assistant: не отправлено — диалог перехватил сотрудник, пока ассистент готовил ответ' }),
  model: z.string().nullable(),
  promptTokens: z.number().int().nullable(),
  completionTokens: z.number().int().nullable(),
  cachedTokens: z.number().int().nullable().meta({ description: 'Из токенов запроса: прочитанные из кэша провайдера (дешевле обычных)' }),
  reasoningTokens: z.number().int().nullable().meta({ description: 'Из токенов ответа: рассуждения модели' }),
  cost: z.number().nullable(),
});

export const resultsView = z.object({
  from: z.string(),
  to: z.string(),
  dialogues: z.number().int(),
  messages: z.object({ total: z.number().int(), client: z.number().int(), assistant: z.number().int(), operator: z.number().int() }),
  escalations: z.number().int(),
  bookings: z.number().int(),
  bookingsByModel: z.number().int().meta({ description: 'Из bookings: записи, сделанные моделью (book_appointment)' }),
  bookingsByButtons: z.number().int().meta({ description: 'Из bookings: записи через кнопки диалога' }),
  orders: z.object({ created: z.number().int(), paid: z.number().int(), paidTotals: z.array(z.object({ currency: z.string(), amount: z.string() })) }),
  ordersByModel: z
    .object({ created: z.number().int(), paid: z.number().int() })
    .describe('Из orders — заказы, оформленные ассистентом (инструментом checkout), а не кнопками магазина'),
  recentBookings: z
    .array(
      z.object({
        id: z.string(),
        clientName: z.string(),
        clientPhone: z.string(),
        specialist: z.string().meta({ description: 'Имя специалиста из YCLIENTS (или наш идентификатор, если список ещё не загружался)' }),
        service: z.string().meta({ description: 'Название услуги из YCLIENTS (или наш идентификатор)' }),
        datetime: z.string().meta({ description: 'Начало записи по местному времени компании, как его записал YCLIENTS' }),
        source: z.string().meta({ description: 'Кто записал: api, button (кнопки диалога), model (ассистент)' }),
        createdAt: z.string(),
      }),
    )
    .meta({ description: 'Последние записи периода (до 20), новые первыми' }),
  recentOrders: z
    .array(
      z.object({
        id: z.string(),
        number: z.string(),
        status: z.string().meta({ description: 'pending, paid или cancelled' }),
        items: z.array(z.object({ title: z.string(), quantity: z.number().int() })),
        total: z.string(),
        currency: z.string(),
        clientPhone: z.string().nullable(),
        source: z.string().meta({ description: 'Кто оформил: buttons (кнопки магазина) или model (ассистент)' }),
        createdAt: z.string(),
      }),
    )
    .meta({ description: 'Последние заказы периода (до 20), новые первыми' }),
  modelSpend: z.object({ requests: z.number().int(), tokens: z.number().int(), cost: z.number(), currency: z.string() }),
});

export const inboxCounts = z.object({
  unread: z.number().int().meta({ description: 'Непрочитанные сообщения клиентов во всех агентах' }),
  escalated: z.number().int().meta({ description: 'Диалоги, ждущие человека (переданы оператору, никто не взял)' }),
  agents: z.array(z.object({ agentId: z.string(), name: z.string(), unread: z.number().int(), escalated: z.number().int() })),
});
export type InboxCounts = z.output<typeof inboxCounts>;

/** The weeks a funnel covers: a dialogue's turns are kept 90 days, so its first message is known that far back. */
export const FUNNEL_MAX_WEEKS = 12;
export const funnelInput = z.object({
  agentId,
  weeks: z.coerce.number().int().min(1).max(FUNNEL_MAX_WEEKS).default(8).meta({ description: 'Сколько последних недель, включая текущую (до 12)' }),
});

const funnelStep = z.enum(['dialogues', 'bookings', 'visits', 'reviews', 'orders', 'payments']);
const funnelCount = z.object({
  key: funnelStep,
  count: z.number().int().meta({ description: 'Клиентов (диалогов) недели, дошедших до этого шага' }),
  conversion: z.number().nullable().meta({ description: 'Доля от предыдущего шага (0…1); null для первого шага или когда на предыдущем никого' }),
});
export const funnelView = z.object({
  timeZone: z.string().meta({ description: 'Часовой пояс, в котором считаются недели (с понедельника)' }),
  steps: z.array(funnelStep).meta({
    description:
      'Шаги по типу агента: dialogues → bookings → visits (запись не отменена, её время прошло и салон не отметил неявку) → reviews (клиент оценил визит) для записи, dialogues → orders → payments для магазина',
  }),
  weeks: z.array(
    z.object({
      weekStart: z.string().meta({ description: 'Понедельник недели, YYYY-MM-DD' }),
      steps: z.array(funnelCount),
      averageScore: z
        .number()
        .nullable()
        .optional()
        .meta({ description: 'Средняя оценка визитов клиентов недели (1–5, до десятых); null — оценок нет. Только для записи' }),
    }),
  ),
  total: z.array(funnelCount).meta({ description: 'Все недели вместе' }),
  averageScore: z.number().nullable().optional().meta({ description: 'Средняя оценка за все недели; null — оценок нет. Только для записи' }),
});
