// What the sessions procedures accept: zod only, so the dashboard can import it.
import { z } from 'zod';

export const sessionIdInput = z.object({ id: z.string().max(100) });
