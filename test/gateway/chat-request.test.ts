// The chat request's shortcut check (plainChatRequest) against the schema it stands in for: over every
// combination of good and bad values of the fields the schema knows, the shortcut accepts nothing the
// schema refuses and gives what the schema gives; the common shapes take the shortcut, the rest the schema.
import { describe, expect, test } from 'bun:test';
import { chatRequestSchema, plainChatRequest, upstreamChatText, withStreamUsage } from '../../src/gateway/request';

const goodMessage = { role: 'user', content: 'Привет' };

/** Values for each field, good and bad; `undefined` leaves the field out. */
const fieldValues: Record<string, unknown[]> = {
  model: [
    'acme/chat',
    'openai/gpt-4o-mini:free',
    'acme',
    '/chat',
    'acme/',
    '-acme/chat',
    `acme/${'x'.repeat(195)}`,
    `acme/${'x'.repeat(196)}`,
    'acme/chat\n',
    'acme/ch at',
    42,
    null,
    undefined,
  ],
  messages: [
    [goodMessage],
    [{ role: 'system', content: 'Ты помощник' }, goodMessage, { role: 'assistant', content: '' }],
    [{ role: 'tool', content: '{"ok":true}', tool_call_id: 'call_1' }],
    [{ role: 'developer', content: 'x', name: 'dev', extra: { deep: [1, 2] } }],
    [{ role: 'function', content: 'x', name: 'f' }],
    [],
    [{ role: 'robot', content: 'x' }],
    [{ role: 'user', content: 5 }],
    [{ role: 'user' }],
    [{ role: 'user', content: null }],
    [{ role: 'assistant', content: null, tool_calls: [] }],
    [{ role: 'assistant', tool_calls: [] }],
    [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
    [{ role: 'user', content: [] }],
    [{ role: 'user', content: [{ type: 'video', url: 'x' }] }],
    [{ content: 'x' }],
    [['user', 'x']],
    [null],
    [goodMessage, 'x'],
    'x',
    { 0: goodMessage },
    null,
    undefined,
  ],
  stream: [true, false, null, undefined, 'true', 1, 0],
  stream_options: [{ include_usage: true }, { include_usage: false }, {}, { other: 1 }, { include_usage: 'yes' }, { include_usage: null }, null, undefined, [], true],
  max_tokens: [1, 16, 2 ** 31, Number.MAX_SAFE_INTEGER, 2 ** 53, 0, -1, 1.5, 1e300, '16', null, undefined],
  max_completion_tokens: [1, 4096, 0, -5, 2.5, '1', null, undefined],
  n: [1, 2, 128, 129, 0, -1, 1.5, '2', null, undefined],
};

function withField(base: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  const body = { ...base };
  if (value === undefined) delete body[field];
  else body[field] = value;
  return body;
}

/** The good body with one field changed, then with two fields changed (every pair of fields, every value). */
function corpus(): unknown[] {
  const base = { model: 'acme/chat', messages: [goodMessage], temperature: 0.2, user: 'u-1' };
  const fields = Object.keys(fieldValues);
  const bodies: unknown[] = [base, null, [], 'text', 42, [base]];
  for (const field of fields) for (const value of fieldValues[field]!) bodies.push(withField(base, field, value));
  for (let i = 0; i < fields.length; i++) {
    for (let j = i + 1; j < fields.length; j++) {
      for (const a of fieldValues[fields[i]!]!) {
        for (const b of fieldValues[fields[j]!]!) bodies.push(withField(withField(base, fields[i]!, a), fields[j]!, b));
      }
    }
  }
  return bodies;
}

describe('plainChatRequest', () => {
  const bodies = corpus();

  test('accepts nothing the schema refuses, and gives what the schema gives', () => {
    let shortcut = 0;
    let schemaOnly = 0;
    for (const body of bodies) {
      const plain = plainChatRequest(structuredClone(body));
      const parsed = chatRequestSchema.safeParse(structuredClone(body));
      if (plain !== null) {
        shortcut += 1;
        if (!parsed.success) throw new Error(`the shortcut accepted what the schema refuses: ${JSON.stringify(body)}`);
        expect(plain).toEqual(parsed.data);
      } else if (parsed.success) {
        schemaOnly += 1;
      }
    }
    // Both ways are taken: the corpus holds shapes of each (a dead shortcut would fail here).
    expect(shortcut).toBeGreaterThan(400);
    expect(schemaOnly).toBeGreaterThan(50);
  });

  test('the shapes clients send take the shortcut and come back as they are', () => {
    const bodies = [
      { model: 'acme/chat', messages: [goodMessage] },
      { model: 'acme/chat', messages: [goodMessage], stream: true, stream_options: { include_usage: true } },
      { model: 'acme/chat', messages: [{ role: 'system', content: 's' }, goodMessage], max_tokens: 16, n: 2, tools: [{ type: 'function' }] },
      { model: 'acme/chat', messages: [goodMessage], max_completion_tokens: 100, stream: null, stream_options: null, response_format: { type: 'json_object' } },
    ];
    for (const body of bodies) expect(plainChatRequest(body) as unknown).toBe(body);
  });

  test('content parts, tool-call turns without content and every refusal go to the schema', () => {
    const schemaShapes = [
      { model: 'acme/chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] },
      { model: 'acme/chat', messages: [goodMessage, { role: 'assistant', content: null, tool_calls: [] }] },
      { model: 'acme/chat', messages: [goodMessage], max_tokens: 0 },
      { model: 'gpt-4o', messages: [goodMessage] },
    ];
    for (const body of schemaShapes) expect(plainChatRequest(body)).toBeNull();
  });
});

describe("withStreamUsage: the body a stream without the client's usage goes upstream with", () => {
  const parse = (text: string) => chatRequestSchema.parse(JSON.parse(text));
  const asked = (text: string) => ({ ...JSON.parse(text), stream_options: { ...JSON.parse(text).stream_options, include_usage: true } });

  test("the key is written into the client's own text, whatever its layout, and means what re-serialising would", () => {
    const texts = [
      '{"model":"acme/chat","messages":[{"role":"user","content":"Привет }"}],"stream":true}',
      '{\n  "model": "acme/chat",\n  "messages": [{"role": "user", "content": "x"}],\n  "stream": true\n}\n',
      '\t{ "stream" : true , "model":"acme/chat","messages":[{"role":"user","content":"{\\"a\\":1}"}] }\r\n  ',
      '{"model":"acme/chat","messages":[{"role":"user","content":"x"}],"stream":true,"temperature":0.5,"metadata":{"k":"}"}}',
    ];
    for (const text of texts) {
      const out = withStreamUsage(text, parse(text));
      // Spliced, not rebuilt: everything the client wrote is there as it wrote it.
      expect(out.startsWith(text.slice(0, text.lastIndexOf('}')))).toBe(true);
      expect(JSON.parse(out)).toEqual(asked(text));
    }
  });

  test('stream_options the client sent (include_usage false, other options, null) are kept and usage turned on', () => {
    for (const options of ['{"include_usage":false}', '{"include_usage":false,"chunk_size":3}', '{}', 'null']) {
      const text = `{"model":"acme/chat","messages":[{"role":"user","content":"x"}],"stream":true,"stream_options":${options}}`;
      const out = JSON.parse(withStreamUsage(text, parse(text)));
      expect(out.stream_options).toEqual({ ...JSON.parse(options), include_usage: true });
      expect(out.messages).toEqual([{ role: 'user', content: 'x' }]);
    }
  });

  test('a key written with escapes is the same key: it is not added a second time', () => {
    const text = '{"model":"acme/chat","messages":[{"role":"user","content":"x"}],"stream":true,"stream\\u005foptions":{"include_usage":false}}';
    const out = withStreamUsage(text, parse(text));
    expect(out).not.toContain('stream\\u005foptions');
    expect(JSON.parse(out).stream_options).toEqual({ include_usage: true });
  });

  test("without the client's text (an assistant's request) the body is serialised", () => {
    const body = parse('{"model":"acme/chat","messages":[{"role":"user","content":"x"}],"stream":true}');
    expect(JSON.parse(withStreamUsage(null, body))).toEqual({ ...body, stream_options: { include_usage: true } });
  });
});

describe('upstreamChatText: a request that names no cap goes with the reserved one', () => {
  const parse = (text: string) => chatRequestSchema.parse(JSON.parse(text));
  const keyCount = (text: string, key: string) => text.split(`"${key}"`).length - 1;

  test("written into the client's own text, alone or with stream usage, meaning what re-serialising would", () => {
    const texts = [
      '{"model":"acme/chat","messages":[{"role":"user","content":"Привет }"}]}',
      '{\n  "model": "acme/chat",\n  "messages": [{"role": "user", "content": "x"}],\n  "stream": true\n}\n',
      '{"model":"acme/chat","messages":[{"role":"user","content":"x"}],"metadata":{"max_tokens":"}"}}',
    ];
    for (const text of texts) {
      const body = parse(text);
      for (const streamUsage of [false, true]) {
        const out = upstreamChatText(text, body, { streamUsage, completionCap: 4096 });
        expect(out.startsWith(text.slice(0, text.lastIndexOf('}')))).toBe(true);
        const expected: Record<string, unknown> = { ...JSON.parse(text), max_tokens: 4096 };
        if (streamUsage) expected.stream_options = { include_usage: true };
        expect(JSON.parse(out)).toEqual(expected);
      }
    }
  });

  test('a cap the client sent as null is replaced, under the key it used, never written twice', () => {
    for (const [fields, key] of [
      ['"max_tokens":null', 'max_tokens'],
      ['"max_completion_tokens":null', 'max_completion_tokens'],
      ['"max\\u005ftokens":null', 'max_tokens'],
      ['"max_tokens":null,"max_completion_tokens":null', 'max_completion_tokens'],
    ] as const) {
      const text = `{"model":"acme/chat","messages":[{"role":"user","content":"x"}],${fields}}`;
      const out = upstreamChatText(text, parse(text), { streamUsage: true, completionCap: 300 });
      expect(JSON.parse(out)[key]).toBe(300);
      expect(JSON.parse(out).stream_options).toEqual({ include_usage: true });
      expect(keyCount(out, key)).toBe(1);
      expect(out).not.toContain('\\u005f');
    }
  });

  test("nothing to add leaves the client's text as it is; without a text the body is serialised with the cap", () => {
    const text = '{"model":"acme/chat","messages":[{"role":"user","content":"x"}],"max_tokens":5}';
    expect(upstreamChatText(text, parse(text), { streamUsage: false, completionCap: null })).toBe(text);
    const body = parse('{"model":"acme/chat","messages":[{"role":"user","content":"x"}]}');
    expect(JSON.parse(upstreamChatText(null, body, { streamUsage: false, completionCap: 64 }))).toEqual({ ...body, max_tokens: 64 });
  });
});
