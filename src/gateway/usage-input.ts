// The usage list's query (GET /api/usage), zod only: the tRPC router (gateway/account-router.ts) and the CSV
// export (usage-export.ts) both read it, so it lives here on the gateway floor and neither imports the other.
import { z } from 'zod';
import { isoInstantInput } from '../http/date-input';

/** The /v1 endpoints a usage row may name (billing's UsageFacts['endpoint'] is typed from this list). */
export const USAGE_ENDPOINTS = ['chat', 'embeddings', 'responses', 'audio_transcriptions', 'messages'] as const;

export const usageQueryInput = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
  from: isoInstantInput.optional(),
  to: isoInstantInput.optional(),
  keyId: z.uuid('ожидается идентификатор ключа').optional(),
  model: z.string().min(1).max(200).optional().describe('Только запросы к этой модели (идентификатор, как в запросе)'),
  endpoint: z
    .enum(USAGE_ENDPOINTS, 'ожидается chat, embeddings, responses, audio_transcriptions или messages')
    .optional()
    .describe('Только запросы этого метода /v1: chat, embeddings, responses, audio_transcriptions, messages'),
});
