// Phone numbers as clients type them ("+7 (916) 123-45-67", "8 916 …"), in the one form every part of
// the service stores and sends on: digits only, international.

/** Digits only (what YCLIENTS and the notices want); a Russian 8XXXXXXXXXX is the same number as 7XXXXXXXXXX. */
export function normalisePhone(raw: string): string | null {
  const digits = raw.replace(/\D/g, '');
  const phone = digits.length === 11 && digits.startsWith('8') ? `7${digits.slice(1)}` : digits;
  return phone.length >= 10 && phone.length <= 15 ? phone : null;
}
