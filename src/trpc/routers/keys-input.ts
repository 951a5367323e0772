// What key creation accepts: zod only, shared with the dashboard page's form.
import { z } from 'zod';

export const createKeyInput = z.object({
  name: z
    .string({ error: 'Укажите название ключа' })
    .trim()
    .min(1, 'Укажите название ключа')
    .max(100, 'Название ключа не может быть длиннее 100 символов'),
});
