// Form checks with the server's own zod schemas: the same rules, the same Russian messages, before a
// request is sent. Errors are keyed by the form field (the first segment of the issue's path).
import type { z } from 'zod';

export type FieldErrors = Partial<Record<string, string>>;

export type Checked<T> = { ok: true; data: T } | { ok: false; errors: FieldErrors; message: string };

export function check<S extends z.ZodType>(schema: S, values: unknown): Checked<z.output<S>> {
  const result = schema.safeParse(values);
  if (result.success) return { ok: true, data: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? '');
    errors[field] ??= issue.message;
  }
  return { ok: false, errors, message: result.error.issues[0]?.message ?? 'Проверьте поля формы' };
}
