// The shapes of Russian requisites as zod pieces (digits of a fixed length, a required line of text), zod
// only: the operator's, a customer's and an organisation's requisites check with the same rules, each with
// its own Russian message.
import { z } from 'zod';

/** Digits only, of one length or one of several (ИНН 10 or 12, ОГРН 13 or 15, БИК 9, an account 20). */
export const digitsInput = (count: number | readonly number[], message: string) =>
  z
    .string({ error: message })
    .trim()
    .refine((s) => /^\d+$/.test(s) && (typeof count === 'number' ? s.length === count : count.includes(s.length)), message);

/** A required line of text, trimmed, at most `max` characters. */
export const lineInput = (max: number, message: string) => z.string({ error: message }).trim().min(1, message).max(max, message);

/** A company's requisites as the API answers them: the operator's and an organisation's (which adds nothing). */
export const companyRequisitesView = z.object({
  companyName: z.string(),
  inn: z.string(),
  kpp: z.string(),
  ogrn: z.string(),
  address: z.string(),
  bankName: z.string(),
  bik: z.string(),
  account: z.string(),
  correspondentAccount: z.string(),
});
