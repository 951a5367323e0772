// What the broadcast routes accept and answer, as zod schemas: the dashboard page checks its form with them.
import { z } from 'zod';

/**
 * One VK message per client, so the «Отписаться» button sits under the whole text and each client's
 * delivery is one outcome: the project's part length (sender.ts MAX_PART_CHARS, under VK's 9000).
 */
export const BROADCAST_MAX_CHARS = 4096;

const agentId = z.string().max(100);

export const broadcastText = z
  .string({ error: 'напишите текст рассылки' })
  .trim()
  .min(1, 'напишите текст рассылки')
  .max(BROADCAST_MAX_CHARS, `не длиннее ${BROADCAST_MAX_CHARS} символов — столько ВКонтакте показывает одним сообщением`);

export const broadcastListInput = z.object({ agentId });
export const broadcastPath = z.object({ agentId, broadcastId: z.string().max(100) });
export const broadcastPreviewInput = z.object({ agentId, text: broadcastText });
export const broadcastCreateInput = z.object({
  agentId,
  text: broadcastText,
  requestId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,100}$/, 'ожидается идентификатор отправки (например, UUID)')
    .meta({ description: 'Идентификатор отправки, созданный клиентом (например, UUID): повтор запроса с ним не создаст вторую рассылку' }),
});

export const broadcastPreviewView = z.object({
  text: z.string().meta({ description: 'Текст ровно так, как его получит каждый клиент' }),
  button: z.string().meta({ description: 'Кнопка под сообщением' }),
  recipients: z.number().int().meta({ description: 'Сколько клиентов получат рассылку сейчас: разрешили сообщения и не отписались' }),
});

export const broadcastView = z.object({
  id: z.string(),
  text: z.string(),
  createdAt: z.string(),
  recipients: z.number().int().meta({ description: 'Скольким клиентам рассылка поставлена в очередь' }),
  delivered: z.number().int().meta({ description: 'Доставлено: ВКонтакте принял сообщение' }),
  failed: z.number().int().meta({ description: 'Не доставлено: ВКонтакте отказал или не ответил за все попытки' }),
  skipped: z.number().int().meta({ description: 'Не отправлено: клиент запретил сообщения или отписался, пока рассылка ждала очереди' }),
  pending: z.number().int().meta({ description: 'Ещё в очереди' }),
});

export const broadcastListView = z.object({
  audience: z.number().int().meta({ description: 'Сколько клиентов получили бы рассылку сейчас' }),
  broadcasts: z.array(broadcastView),
});
