// Examples for the OpenAPI document, built from the schemas themselves: a schema's own `example` (set
// with zod's .meta({ example }) where a plain value would not pass its pattern) wins, then its format,
// enum, bounds and the property's name. So every request and answer of every route has an example that
// its schema accepts (redocly's no-invalid-media-type-examples checks that), new routes included.

type Schema = Record<string, unknown>;

const FORMAT_EXAMPLES: Record<string, unknown> = {
  email: 'user@example.com',
  'date-time': '2026-01-31T12:00:00.000Z',
  date: '2026-01-31',
  uri: 'https://conduit.example/app',
  url: 'https://conduit.example/app',
  uuid: '0f8fad5b-d9cb-469f-a165-70867728950e',
};

/** Examples by property name, for plain strings and numbers whose name says what they hold. */
const NAMED_STRINGS: [RegExp, string][] = [
  [/^email$/i, 'user@example.com'],
  [/^(groupId|companyId)$/, '218800412'],
  [/^(userId|channelId)$/, '123456789'],
  [/^accessToken$/, 'vk1.a.community-token-0123456789abcdef'],
  [/^botToken$/, '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'],
  [/^(secretKey|confirmationCode)$/, 'S3cretKey2026'],
  [/^(specialistId|serviceId)$/, 'maria'],
  [/^clientPhone$/, '+79161234567'],
  [/^clientName$/, 'Мария'],
  [/^systemPrompt$/, 'Ты — вежливый администратор салона.'],
  [/^(description|text)$/, 'Льняная скатерть 150×220 см'],
  [/(^id$|Id$)/, '0f8fad5b-d9cb-469f-a165-70867728950e'],
  [/(At|^from|^to)$/, '2026-01-31T12:00:00.000Z'],
  [/(url|Url)$/, 'https://conduit.example/app'],
  [/^model$/, 'openai/gpt-4o-mini'],
  [/^currency$/, 'RUB'],
  [/^token$/, 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIwZjhmYWQ1YiJ9.c2lnbmF0dXJl'],
  [/^key$/, 'cdt-a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8'],
  [/^keyPrefix$/, 'cdt-a1b2'],
  [/^(message|reason)$/, 'Готово'],
  [/^password$/, 'S3cret-pass'],
  [/^(name|title)$/, 'Основной'],
  [/^cursor$|Cursor$/, 'MjAyNi0wMS0zMVQxMjowMDowMFo'],
  [/^timeZone$/, 'Europe/Moscow'],
];

function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return components[ref.slice('#/components/schemas/'.length)] ?? {};
  }
  return schema;
}

/** Values tried, in order, against a string's pattern when the name's example does not match it. */
const PATTERN_CANDIDATES = [
  'S3cretKey2026',
  '123456',
  '2026-01-31',
  '2026-01-31T12:00:00Z',
  'openai/gpt-4o-mini',
  'openai/*',
  '@conduit_news',
  'https://shop.example/pay/{orderNumber}',
  // A wall-clock time of day (the visit reminders' quiet hours).
  '21:00',
];

function stringExample(schema: Schema, name: string): string {
  const format = typeof schema.format === 'string' ? FORMAT_EXAMPLES[schema.format] : undefined;
  if (typeof format === 'string') return format;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const fits = (text: string) => text.length >= min && text.length <= max;
  let text = NAMED_STRINGS.find(([pattern]) => pattern.test(name))?.[1] ?? 'текст';
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u');
    if (!pattern.test(text) || !fits(text)) text = PATTERN_CANDIDATES.find((c) => pattern.test(c) && fits(c)) ?? text;
    return text;
  }
  if (text.length < min) text = text.padEnd(min, 'x');
  if (text.length > max) text = text.slice(0, max);
  return text;
}

/** Plausible figures by property name: money in currency units, token counts, durations. */
const NAMED_NUMBERS: [RegExp, number][] = [
  [/^balance$/, 3],
  [/[cC]ost$|^unpaid$/, 0.000125],
  [/Tokens$/, 1000],
  [/^(amount|spendLimit|spent)$/, 500],
  [/PerMillion$/, 125],
  [/Ms$/, 412],
];

function numberExample(schema: Schema, integer: boolean, name = ''): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : undefined;
  const named = NAMED_NUMBERS.find(([pattern]) => pattern.test(name))?.[1];
  let value = named !== undefined && (!integer || Number.isInteger(named)) ? named : integer ? 20 : 1.5;
  if (min !== undefined && value < min) value = integer ? Math.ceil(min) : min;
  if (max !== undefined && value > max) value = integer ? Math.floor(max) : max;
  return value;
}

/** A value the schema accepts, for `name` (the property or parameter it describes). */
export function exampleOf(input: Schema, components: Record<string, Schema>, name = '', depth = 0): unknown {
  const schema = resolve(input, components);
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if ('default' in schema && schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const nonNull = (options as Schema[]).find((o) => resolve(o, components).type !== 'null') ?? (options[0] as Schema);
      return exampleOf(nonNull, components, name, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return exampleOf(schema.allOf[0] as Schema, components, name, depth + 1);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const type = types.find((t) => t !== 'null') ?? types[0];
  if (depth > 8) return null;
  switch (type) {
    case 'string':
      return stringExample(schema, name);
    case 'integer':
      return numberExample(schema, true, name);
    case 'number':
      return numberExample(schema, false, name);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const count = typeof schema.minItems === 'number' && schema.minItems > 1 ? schema.minItems : 1;
      if (schema.maxItems === 0) return [];
      return Array.from({ length: count }, () => exampleOf(items, components, name.replace(/s$/, ''), depth + 1));
    }
    default: {
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const out: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(properties)) out[key] = exampleOf(property, components, key, depth + 1);
      // A record (a mapping): one entry shows its shape.
      const extra = schema.additionalProperties;
      if (Object.keys(properties).length === 0 && extra && typeof extra === 'object' && Object.keys(extra).length > 0) {
        out.ключ = exampleOf(extra as Schema, components, '', depth + 1);
      }
      return out;
    }
  }
}
