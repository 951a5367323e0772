// What Anthropic's Messages API costs over chat completions (issue 43: translation adds ≤ 50 µs of CPU a
// request): `npm run bench:messages`. One Conduit against the bench's fake upstream (an OpenAI-compatible
// host, so every /v1/messages request is translated to chat and its answer back), the same conversation
// asked as chat and as messages, plain and streamed, in alternating phases (chat, messages / messages,
// chat, …) so a drift of the machine falls on both. The judge is Conduit's own CPU time (user + system from
// /proc) divided by the requests it answered: throughput moves with the machine, CPU per request much less.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBenchDatabase, topUp, type BenchDatabase } from './database';
import { postJson } from './environment';
import { pickLoadGenerator } from './loadgen';
import { CLOCK_TICKS_PER_SECOND, freePort, treeCpuTicks, startReadyChild, stopChild, waitForHttp, type Child, conduitEnv } from './processes';
import { REPO, settings } from './settings';

const env = process.env;
const CONNECTIONS = Number(env.BENCH_MESSAGES_CONNECTIONS ?? 16);
const SECONDS = Number(env.BENCH_MESSAGES_SECONDS ?? 6);
const ROUNDS = Number(env.BENCH_MESSAGES_ROUNDS ?? 2);
const BUDGET_US = 50;

const system = 'You are terse.';
const question = 'Say hello in one word.';
const bodies = {
  chat: (stream: boolean) =>
    JSON.stringify({
      model: 'acme/chat',
      max_tokens: 16,
      stream,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: question },
      ],
    }),
  messages: (stream: boolean) => JSON.stringify({ model: 'acme/chat', max_tokens: 16, stream, system, messages: [{ role: 'user', content: question }] }),
};
const paths = { chat: '/v1/chat/completions', messages: '/v1/messages' };

const children: Child[] = [];
let database: BenchDatabase | null = null;
const workDir = mkdtempSync(join(tmpdir(), 'conduit-bench-messages-'));
const log = (line: string) => console.log(`[bench:messages] ${line}`);

try {
  const generator = pickLoadGenerator(env, REPO);
  const bun = process.execPath;
  const baseEnv = { PATH: env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? '/tmp' };
  const fake = await startReadyChild('fake upstream', [bun, join(REPO, 'bench', 'fake-upstream.ts')], baseEnv);
  children.push(fake.child);
  database = await createBenchDatabase(settings.adminUrl);
  const port = freePort();
  const proc = Bun.spawn([bun, 'src/index.ts'], {
    cwd: REPO,
    env: {
      ...baseEnv,
      ...conduitEnv(port),
      DATABASE_URL: database.url,
      DATA_DIR: join(workDir, 'data'),
      UPSTREAM_BASE_URL: `http://127.0.0.1:${fake.port}/v1`,
      LOG_REQUESTS: 'false',
      LOG_LEVEL: 'warn',
      MAX_CONNECTIONS_PER_ADDRESS: '4096',
    },
    stdin: 'ignore',
    stdout: Bun.file(join(workDir, 'conduit.log')),
    stderr: Bun.file(join(workDir, 'conduit.err.log')),
  });
  const conduit: Child = { name: 'conduit', proc, pid: proc.pid };
  children.push(conduit);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, 30_000, () => proc.exitCode === null);

  const registered = await postJson(`${url}/api/auth/register`, { email: `bench-${Date.now()}@example.com`, password: 'bench-password-1' });
  const key = (await postJson(`${url}/api/keys`, { name: 'bench' }, registered.token as string)).key as string;
  await topUp(database.sql, registered.user.id as string, 100_000n * 1_000_000_000n);
  log(`Conduit pid ${proc.pid}, ${generator.name}, c=${CONNECTIONS}, ${SECONDS} s a phase, ${ROUNDS} rounds`);

  const measure = async (api: 'chat' | 'messages', stream: boolean, seconds: number) => {
    const before = treeCpuTicks(proc.pid);
    const result = await generator.run(
      {
        url: `${url}${paths[api]}`,
        body: bodies[api](stream),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        connections: CONNECTIONS,
        durationSeconds: seconds,
        workDir,
        tag: `${api}-${stream ? 'stream' : 'plain'}`,
        slowMs: 50,
      },
      () => {},
    );
    if (result.non2xx > 0 || result.socketErrors > 0)
      throw new Error(`${api} ${stream ? 'stream' : 'plain'}: ${result.non2xx} non-2xx, ${result.socketErrors} socket errors`);
    const cpuUs = ((treeCpuTicks(proc.pid) - before) / CLOCK_TICKS_PER_SECOND) * 1e6;
    return { requests: result.requests, rps: result.rps, cpuUsPerRequest: cpuUs / result.requests, p50Ms: result.p50Ms };
  };

  const lines: string[] = [];
  let worst = 0;
  for (const stream of [false, true]) {
    const mode = stream ? 'stream' : 'plain';
    const totals = { chat: { cpu: 0, requests: 0, rps: 0 }, messages: { cpu: 0, requests: 0, rps: 0 } };
    for (const api of ['chat', 'messages'] as const) await measure(api, stream, 2); // warm-up, discarded
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['chat', 'messages'] as const) : (['messages', 'chat'] as const);
      for (const api of order) {
        const r = await measure(api, stream, SECONDS);
        totals[api].cpu += r.cpuUsPerRequest * r.requests;
        totals[api].requests += r.requests;
        totals[api].rps += r.rps / ROUNDS;
        log(`${mode} ${api}: ${r.rps.toFixed(0)} req/s, ${r.cpuUsPerRequest.toFixed(1)} µs CPU a request, p50 ${r.p50Ms.toFixed(3)} ms`);
      }
    }
    const chatUs = totals.chat.cpu / totals.chat.requests;
    const messagesUs = totals.messages.cpu / totals.messages.requests;
    const added = messagesUs - chatUs;
    worst = Math.max(worst, added);
    lines.push(
      `| ${mode} | ${totals.chat.rps.toFixed(0)} req/s, ${chatUs.toFixed(1)} µs | ${totals.messages.rps.toFixed(0)} req/s, ${messagesUs.toFixed(1)} µs | **${added >= 0 ? '+' : ''}${added.toFixed(1)} µs** |`,
    );
  }
  console.log('\n| mode | chat: req/s, CPU a request | messages: req/s, CPU a request | messages − chat |\n|---|---|---|---|');
  for (const line of lines) console.log(line);
  console.log(`\ntarget: translation adds ≤ ${BUDGET_US} µs CPU a request: ${worst <= BUDGET_US ? 'MET' : 'MISS'} (worst +${worst.toFixed(1)} µs)`);
  await stopChild(conduit, 10_000);
} finally {
  for (const child of children.reverse()) await stopChild(child, 5_000).catch(() => null);
  await database?.drop().catch(() => {});
  rmSync(workDir, { recursive: true, force: true });
}
