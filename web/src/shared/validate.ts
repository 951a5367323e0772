// Form checks with the server's own zod schemas: the same rules, the same Russian messages, before a
// request is sent. Errors are keyed by the form field (the first segment of the issue's path).
import type { z } from 'zod';
import { fieldLabel } from '@server/http/field-labels';
import type { ApiError } from '../app/api';

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
  const first = result.error.issues[0];
  // Away from its field (a line beside a button), a message says which field it is about, as the API's do.
  const label = first ? fieldLabel(first.path) : null;
  const message = first ? (label && !first.message.startsWith(`${label}:`) ? `${label}: ${first.message}` : first.message) : 'Проверьте поля формы';
  return { ok: false, errors, message };
}

/** The form's own errors, and under each field the server's refusal of it where the form found nothing. */
export function withServerErrors(local: FieldErrors, error: ApiError | undefined): FieldErrors {
  if (!error?.fields) return local;
  const merged: FieldErrors = { ...local };
  for (const [path, message] of Object.entries(error.fields)) merged[path.split(/[.[]/)[0]!] ??= message;
  return merged;
}

/**
 * A number as a person types it: «1 500,50», «-20», «0.5» (a typographic minus too). '' → undefined
 * (an empty optional field); anything else that is not a decimal → NaN, so the schema's own message says
 * what it expects.
 */
export function decimalInput(text: string): number | undefined {
  const compact = text
    .replace(/[\s\u00a0\u202f]/g, '')
    .replace(',', '.')
    .replace(/^[\u2212\u2013]/, '-');
  if (compact === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(compact) ? Number(compact) : Number.NaN;
}

/** A number back into a form field: «1500,5», never an exponent such as 1e-7. */
export function decimalText(value: number): string {
  const text = Math.abs(value) < 1e-6 && value !== 0 ? value.toFixed(9).replace(/0+$/, '') : String(value);
  return text.replace('.', ',');
}
