// Per-call cost of what issue 28 put on every /v1 request, in isolation: `bun bench/micro.ts` (best of 5 rounds of 1e6 calls).
import { createMetrics } from '../src/metrics/registry';
import { upstreamChatText } from '../src/gateway/request';
import { nestsDeeperThan } from '../src/http/json';

const N = 1_000_000;
function best(name: string, fn: () => void) {
  let bestNs = Infinity;
  for (let round = 0; round < 5; round++) {
    const t = Bun.nanoseconds();
    for (let i = 0; i < N; i++) fn();
    bestNs = Math.min(bestNs, (Bun.nanoseconds() - t) / N);
  }
  console.log(`${name}: ${bestNs.toFixed(1)} ns/call`);
}
const metrics = createMetrics();
metrics.setRoutes([
  { method: 'POST', path: '/v1/chat/completions' },
  { method: 'GET', path: '/v1/responses/:id' },
]);
best('metrics.request (route template, cached)', () => metrics.request('/v1/chat/completions', 'POST', 200));
const text = JSON.stringify({
  model: 'acme/chat',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Say hello in one word.' },
  ],
});
const body = JSON.parse(text);
let sink = 0;
best('upstreamChatText, no cap named (splice max_tokens)', () => {
  sink += upstreamChatText(text, body, { streamUsage: false, completionCap: 4096 }).length;
});
best('upstreamChatText, cap named (text as is)', () => {
  sink += upstreamChatText(text, body, { streamUsage: false, completionCap: null }).length;
});
best('nestsDeeperThan(bench body)', () => {
  sink += nestsDeeperThan(text) ? 1 : 0;
});
console.log(sink > 0 ? '' : '');
