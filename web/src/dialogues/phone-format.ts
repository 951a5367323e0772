// Phone numbers as people read them: a Russian number (stored as the digits 7XXXXXXXXXX) becomes
// «+7 916 123-45-67»; anything else is shown as it was given, with a plus before bare digits.

/** «+7 916 123-45-67» for a Russian mobile or landline number, else the text itself (trimmed). */
export function formatPhone(phone: string): string {
  const text = phone.trim();
  const digits = text.replace(/\D/g, '');
  // Only separators around the digits: a text with letters or an extension is not reformatted.
  const onlyPhone = /^\+?[\d\s()\-.]+$/.test(text);
  if (onlyPhone && digits.length === 11 && (digits[0] === '7' || digits[0] === '8')) {
    return `+7 ${digits.slice(1, 4)} ${digits.slice(4, 7)}-${digits.slice(7, 9)}-${digits.slice(9, 11)}`;
  }
  if (onlyPhone && /^\d{8,15}$/.test(text)) return `+${text}`;
  return text;
}
