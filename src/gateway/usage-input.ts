// The usage list's query (GET /api/usage), zod only: the tRPC router (gateway/account-router.ts) and the CSV
// export (usage-export.ts) both read it, so it lives here on the gateway floor and neither imports the other.
import { z } from 'zod';
import { isoInstantInput } from '../http/date-input';

export const usageQueryInput = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
  from: isoInstantInput.optional(),
  to: isoInstantInput.optional(),
  keyId: z.uuid('ожидается идентификатор ключа').optional(),
  model: z.string().min(1).max(200).optional().describe('Только запросы к этой модели (идентификатор, как в запросе)'),
});
