// What POST /v1/messages accepts: Anthropic's Messages request, checked in Anthropic's field names with Russian
// messages. Only what Conduit reads or translates is checked; every other field (thinking, cache_control,
// container…) passes to an anthropic provider untouched.
import { z } from 'zod';
import { MODEL_ID } from '../request';

const text = z.looseObject({ type: z.literal('text'), text: z.string({ error: 'text должен быть строкой' }) });
const imageSource = z.discriminatedUnion(
  'type',
  [
    z.looseObject({
      type: z.literal('base64'),
      media_type: z.string({ error: 'media_type должен быть строкой' }),
      data: z.string({ error: 'data должен быть строкой' }),
    }),
    z.looseObject({ type: z.literal('url'), url: z.string({ error: 'url должен быть строкой' }).min(1) }),
  ],
  { error: 'source картинки: {type: "base64", media_type, data} или {type: "url", url}' },
);
const image = z.looseObject({ type: z.literal('image'), source: imageSource });
const toolUse = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string({ error: 'id вызова инструмента должен быть строкой' }).min(1),
  name: z.string({ error: 'name инструмента должен быть строкой' }).min(1),
  input: z.record(z.string(), z.unknown(), { error: 'input вызова инструмента должен быть объектом' }),
});
const toolResult = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string({ error: 'tool_use_id должен быть строкой' }).min(1),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))], { error: 'content результата: строка или массив блоков' }).optional(),
  is_error: z.boolean({ error: 'is_error должен быть true или false' }).optional(),
});
/** Blocks Conduit passes on as they are (thinking, documents, server tools' blocks…): they need a type. */
const otherBlock = z.looseObject({
  type: z.string().refine((t) => !['text', 'image', 'tool_use', 'tool_result'].includes(t)),
});

export const contentBlock = z.union([text, image, toolUse, toolResult, otherBlock], {
  error: 'блок содержимого должен иметь type: text, image, tool_use, tool_result или другой тип Messages API',
});

const message = z.looseObject({
  // `system` inside messages: Claude Code sends one mid-conversation (beta mid-conversation-system-2026-04-07).
  role: z.enum(['user', 'assistant', 'system'], { error: 'role должен быть user, assistant или system' }),
  content: z.union([z.string(), z.array(contentBlock)], { error: 'content должен быть строкой или массивом блоков' }),
});

const tool = z.looseObject({
  name: z.string({ error: 'name инструмента должен быть строкой' }).min(1, 'name инструмента не может быть пустым'),
  description: z.string({ error: 'description инструмента должен быть строкой' }).optional(),
  // Anthropic's own server tools (web_search_…, bash_…) have a type and no input_schema.
  input_schema: z.record(z.string(), z.unknown(), { error: 'input_schema инструмента должен быть объектом JSON Schema' }).optional(),
});

const toolChoice = z.discriminatedUnion(
  'type',
  [
    z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
    z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
    z.looseObject({
      type: z.literal('tool'),
      name: z.string({ error: 'tool_choice.name должен быть строкой' }).min(1),
      disable_parallel_tool_use: z.boolean().optional(),
    }),
    z.looseObject({ type: z.literal('none') }),
  ],
  { error: 'tool_choice.type: auto, any, tool или none' },
);

const modelField = z
  .string({ error: 'Укажите model в формате <владелец>/<модель>' })
  .max(200)
  .regex(MODEL_ID, 'model должен иметь вид <владелец>/<модель>, например anthropic/claude-sonnet-4');

/** The fields count_tokens shares with a message: everything but max_tokens and the sampling settings. */
const promptFields = {
  model: modelField,
  messages: z.array(message, { error: 'messages должен быть массивом сообщений' }).min(1, 'messages не может быть пустым'),
  system: z.union([z.string(), z.array(text)], { error: 'system должен быть строкой или массивом блоков {type: "text", text}' }).optional(),
  tools: z.array(tool, { error: 'tools должен быть массивом инструментов' }).optional(),
  tool_choice: toolChoice.optional(),
};

export const messagesRequestSchema = z.looseObject({
  ...promptFields,
  max_tokens: z
    .number({ error: 'max_tokens обязателен: целое положительное число' })
    .int('max_tokens должен быть целым числом')
    .positive('max_tokens должен быть больше нуля'),
  stream: z.boolean({ error: 'stream должен быть true или false' }).optional(),
  stop_sequences: z.array(z.string(), { error: 'stop_sequences должен быть массивом строк' }).optional(),
  temperature: z.number({ error: 'temperature должен быть числом от 0 до 1' }).min(0).max(1, 'temperature должен быть от 0 до 1').optional(),
  top_p: z.number({ error: 'top_p должен быть числом от 0 до 1' }).min(0).max(1, 'top_p должен быть от 0 до 1').optional(),
  top_k: z.number({ error: 'top_k должен быть целым числом' }).int().nonnegative().optional(),
  metadata: z.looseObject({ user_id: z.string({ error: 'metadata.user_id должен быть строкой' }).nullable().optional() }).optional(),
});

export const countTokensRequestSchema = z.looseObject(promptFields);

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type MessagesMessage = MessagesRequest['messages'][number];
export type ContentBlock = z.infer<typeof contentBlock>;
export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;
