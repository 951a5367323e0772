// The stream filter that takes out the usage Conduit asked for (the client did not), or adds the cost to it
// (the client did), for any split of the stream into chunks and either line ending.
import { describe, expect, test } from 'bun:test';
import { createUsageFilter, MAX_FILTERED_EVENT_CHARS, SseEventTooLarge } from '../../src/gateway/usage-filter';

const chunk = (delta: unknown, finish: string | null = null) =>
  JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], usage: null });
const usageChunk = JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });

function stream(eol: string): { raw: string; stripped: string } {
  const events = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'При' }), chunk({ content: 'вет, usage' }), chunk({}, 'stop'), usageChunk, '[DONE]'];
  const raw = events.map((e) => `data: ${e}${eol}${eol}`).join('');
  const stripped = events
    .filter((e) => e !== usageChunk)
    .map((e) => `data: ${e.replace(',"usage":null', '')}${eol}${eol}`)
    .join('');
  return { raw, stripped };
}

/** Runs bytes through a filter in the given pieces, decoding as the relay does. */
function run(filter: ReturnType<typeof createUsageFilter>, bytes: Uint8Array, cuts: number[]): string {
  const decoder = new TextDecoder();
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    const piece = bytes.slice(from, cut);
    from = cut;
    out.push(filter.push(decoder.decode(piece, { stream: true }), piece));
  }
  out.push(filter.end(decoder.decode()));
  return new TextDecoder().decode(Buffer.concat(out));
}

function randomCuts(length: number, seed: number): number[] {
  let x = seed;
  const cuts: number[] = [];
  for (let at = 0; ; ) {
    x = (x * 1103515245 + 12345) % 2147483648;
    at += 1 + (x % 40);
    if (at >= length) return cuts;
    cuts.push(at);
  }
}

describe('the usage filter', () => {
  for (const eol of ['\n', '\r\n']) {
    const name = eol === '\n' ? 'LF' : 'CRLF';
    test(`${name}: the usage-only chunk and the "usage":null fields go, whatever the chunking`, () => {
      const { raw, stripped } = stream(eol);
      const bytes = new TextEncoder().encode(raw);
      expect(run(createUsageFilter(), bytes, [])).toBe(stripped);
      for (let seed = 1; seed <= 50; seed++) expect(run(createUsageFilter(), bytes, randomCuts(bytes.length, seed))).toBe(stripped);
      // One byte at a time, cutting every multi-byte character.
      expect(
        run(
          createUsageFilter(),
          bytes,
          Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
        ),
      ).toBe(stripped);
    });

    test(`${name}: with the cost, the stream passes as it came but for "cost" in the usage object`, () => {
      const { raw } = stream(eol);
      const bytes = new TextEncoder().encode(raw);
      const expected = raw.replace('"usage":{', '"usage":{"cost":0.000000625,');
      for (let seed = 1; seed <= 20; seed++) {
        expect(run(createUsageFilter({ cost: () => '0.000000625' }), bytes, randomCuts(bytes.length, seed))).toBe(expected);
      }
    });
  }

  test('an event whose text mentions usage is not taken for a usage chunk', () => {
    const text = `data: ${chunk({ content: '"usage":{"x":1} "choices":[]' })}\n\n`;
    const bytes = new TextEncoder().encode(text);
    expect(run(createUsageFilter(), bytes, [])).toBe(text.replace(',"usage":null', ''));
  });
});

describe('an event that never ends is not held', () => {
  const big = 'a'.repeat(MAX_FILTERED_EVENT_CHARS + 10);
  const open = `data: {"choices":[{"index":0,"delta":{"content":"${big}`;
  const first = `data: ${chunk({ content: 'Hel' })}\n\n`;
  const push = (filter: ReturnType<typeof createUsageFilter>, text: string) => filter.push(text, new TextEncoder().encode(text));

  for (const [name, options] of [
    ['strip', {}],
    ['cost', { cost: () => '0.1' }],
  ] as const) {
    test(`${name}: in pieces, the filter gives up once the open event is past the cap`, () => {
      const filter = createUsageFilter(options);
      expect(new TextDecoder().decode(push(filter, first))).toContain('Hel');
      expect(() => {
        for (let i = 0; i < open.length; i += 64 * 1024) push(filter, open.slice(i, i + 64 * 1024));
      }).toThrow(SseEventTooLarge);
      // What it held is let go: nothing of the open event comes out at the end.
      expect(filter.end().byteLength).toBe(0);
    });

    test(`${name}: in one chunk with whole events before it, those still reach the client`, () => {
      const filter = createUsageFilter(options);
      let thrown: unknown = null;
      try {
        push(filter, first + open);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(SseEventTooLarge);
      expect(new TextDecoder().decode((thrown as SseEventTooLarge).before)).toContain('Hel');
      expect(filter.end().byteLength).toBe(0);
    });
  }
});
