// A time zone in a query or body, zod only: the usage summary (gateway/account-router.ts) and the statement
// (statement/) both read it, so it sits on the bottom floor and neither imports the other.
import { z } from 'zod';

/** A time zone this process knows by its IANA name (the database is asked too, by the procedure). */
export const timeZone = z
  .string()
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(tz);
    } catch {
      return false;
    }
  }, 'неизвестный часовой пояс, выберите пояс из списка, например «Москва»')
  .default('UTC');
