// Micro-benchmark of the SSE meter (src/gateway/sse.ts) against an earlier version of it and against a
// bare eventsource-parser reader, on a 63 KB, 301-event stream fed in 1 KB chunks, one event per chunk and
// one 64 KB chunk, and on the bench's own 6-event stream. The earlier version is taken from git:
//   bun bench/sse-meter.ts [ref]        (default ref: 7e2f979, the hand-written byte scanner)
// The in-path comparison (the stream phases of `npm run bench` with each meter) is in bench/RESULTS.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { createSseMeter } from '../src/gateway/sse';

const ref = process.argv[2] ?? '7e2f979';
const dir = join(import.meta.dir, '.tmp', 'sse-meter');
mkdirSync(dir, { recursive: true });
const old = Bun.spawnSync(['git', 'show', `${ref}:src/gateway/sse.ts`], { stdout: 'pipe', stderr: 'inherit' });
if (old.exitCode !== 0) throw new Error(`git show ${ref}:src/gateway/sse.ts failed`);
// The old file imports eventsource-parser only if it is already the new one; its own imports are none.
writeFileSync(join(dir, 'sse-old.ts'), old.stdout);
const { createSseMeter: createOld } = (await import(join(dir, 'sse-old.ts'))) as { createSseMeter: typeof createSseMeter };

const USAGE_OBJECT = /"usage"\s*:\s*\{/;
/** A bare eventsource-parser reader doing the same work per event, without the 1 MiB cap. */
function createBare() {
  const decoder = new TextDecoder();
  let deferred: string[] = [];
  let usage: unknown = null;
  let done = false;
  let text = '';
  const parser = createParser({
    onEvent(e) {
      if (done) return;
      if (e.data.startsWith('[DONE]')) {
        done = true;
        return;
      }
      deferred.push(e.data);
      if (USAGE_OBJECT.test(e.data)) {
        try {
          usage = JSON.parse(e.data).usage;
        } catch {
          // skipped
        }
      }
    },
  });
  return {
    push: (chunk: Uint8Array) => parser.feed(decoder.decode(chunk, { stream: true })),
    get usage() {
      return usage;
    },
    get completionText() {
      for (const d of deferred) {
        try {
          text += JSON.parse(d).choices?.[0]?.delta?.content ?? '';
        } catch {
          // skipped
        }
      }
      deferred = [];
      return text;
    },
  };
}

const encoder = new TextEncoder();
const events: string[] = [];
for (let i = 0; i < 300; i++) {
  const chunk = {
    id: 'chatcmpl-x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'acme/chat',
    choices: [{ index: 0, delta: { content: `слово ${i} and some more text here` }, finish_reason: null }],
    usage: null,
  };
  events.push(`data: ${JSON.stringify(chunk)}\n\n`);
}
events.push(`data: ${JSON.stringify({ id: 'x', choices: [], usage: { prompt_tokens: 10, completion_tokens: 300, total_tokens: 310 } })}\n\ndata: [DONE]\n\n`);
const whole = encoder.encode(events.join(''));
const chunks = (size: number) => {
  const out: Uint8Array[] = [];
  for (let i = 0; i < whole.length; i += size) out.push(whole.slice(i, i + size));
  return out;
};
const shapes: [string, Uint8Array[], number][] = [
  ['63 KB stream, 1 KB chunks', chunks(1024), 1000],
  ['63 KB stream, one event per chunk', events.map((e) => encoder.encode(e)), 1000],
  ['63 KB stream, one chunk', [whole], 1000],
  ["the bench's stream (6 events, one chunk)", [encoder.encode(events.slice(0, 5).join('') + events[300])], 20000],
];
const meters: [string, () => { push(c: Uint8Array): void; usage: unknown; completionText: string }][] = [
  [`sse.ts at ${ref}`, createOld],
  ['sse.ts now', createSseMeter],
  ['bare eventsource-parser', createBare],
];
console.log(`| stream | meter | usage only µs | usage and text µs |\n|---|---|---:|---:|`);
for (const [name, parts, n] of shapes) {
  for (const [label, make] of meters) {
    for (let w = 0; w < 50; w++) {
      const m = make();
      for (const p of parts) m.push(p);
      void m.completionText;
    }
    let t = performance.now();
    for (let i = 0; i < n; i++) {
      const m = make();
      for (const p of parts) m.push(p);
      if (!m.usage) throw new Error('no usage');
    }
    const usageOnly = ((performance.now() - t) / n) * 1000;
    t = performance.now();
    for (let i = 0; i < n; i++) {
      const m = make();
      for (const p of parts) m.push(p);
      void m.completionText;
    }
    const withText = ((performance.now() - t) / n) * 1000;
    console.log(`| ${name} | ${label} | ${usageOnly.toFixed(1)} | ${withText.toFixed(1)} |`);
  }
}
