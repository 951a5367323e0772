// `npm run bench:webhooks`: alert webhooks that try to stall or bloat the server (issue 38, row 3). One
// account's webhook answers 200 with a 1 GiB body; eight accounts' webhooks take the request and never
// answer. While their alert events are being delivered, a client of a ninth account writes to its VK
// community again and again. Targets: Conduit's RSS stays within 50 MB of idle (VmHWM over the whole
// window, reset right before it) and every VK reply arrives in under 1 s.
//
// Conduit runs as a separate process (`bun src/index.ts`, NODE_ENV=production) on a fresh PostgreSQL
// database (BENCH_PG_URL, as `npm run bench`), with ALERT_WEBHOOK_ALLOW_PRIVATE=true so its webhooks may
// reach this process's receivers on 127.0.0.1. The fake model upstream is bench/fake-upstream.ts; the fake
// VK is the test suite's (test/fakes/vk.ts), in this process, as are the webhook receivers. `BENCH_REF=<commit>`
// measures a committed tree instead of the working tree (bench/environment.ts), e.g. the code before the fix.
//
// Knobs: WEBHOOK_STALL_WINDOW (seconds the stall is watched, default 15), WEBHOOK_STALL_BODY_MIB (the huge
// answer, default 1024), WEBHOOK_STALL_SILENT (silent receivers, default 8). Exit code 1 when a target is missed.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { startFakeVk } from '../test/fakes/vk';
import { createBenchDatabase } from './database';
import { conduitSource } from './environment';
import { freePort, peakRssBytes, resetPeakRss, rssBytes, startReadyChild, stopChild, waitForHttp, withOpenFiles, type Child, conduitEnv } from './processes';
import { settings as benchSettings } from './settings';

const env = process.env;
const WINDOW_S = Number(env.WEBHOOK_STALL_WINDOW ?? 15);
const BODY_BYTES = Number(env.WEBHOOK_STALL_BODY_MIB ?? 1024) * 1024 * 1024;
const SILENT = Number(env.WEBHOOK_STALL_SILENT ?? 8);
const TARGETS = { rssOverIdleMB: 50, vkReplyMs: 1000 };
const GROUP = 218800412;
const VK_TOKEN = 'vk1.a.community-token-0123456789abcdefghij';
const VK_SECRET = 's3cr3tKey42';
const VK_CODE = '5d2c1e8a';
const MB = 1_000_000;
const log = (msg: string) => process.stderr.write(`[webhook-stall ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

async function request(url: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${init.method ?? 'POST'} ${url}: ${res.status} ${text.slice(0, 300)}`);
  // The VK callback answers the plain text "ok".
  return text.startsWith('{') ? (JSON.parse(text) as any) : text;
}

/** A raw HTTP receiver; `answer` decides what each connection gets once its request arrived. */
function receiver(answer: (socket: Socket, stats: ReceiverStats) => void) {
  const stats: ReceiverStats = { requests: 0, open: 0, closed: 0, written: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      stats.closed += 1;
      stats.open = sockets.size;
    });
    socket.once('data', () => {
      stats.requests += 1;
      stats.open = sockets.size;
      answer(socket, stats);
    });
  });
  return new Promise<{ url: string; stats: ReceiverStats; close(): void }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/conduit`,
        stats,
        close() {
          for (const s of sockets) s.destroy();
          server.close();
        },
      }),
    ),
  );
}

interface ReceiverStats {
  requests: number;
  open: number;
  closed: number;
  /** Body bytes written (the huge answer). */
  written: number;
}

/** 200 with a BODY_BYTES body, written as fast as the reader takes it. */
const hugeAnswer = (socket: Socket, stats: ReceiverStats) => {
  socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: ${BODY_BYTES}\r\n\r\n`);
  const chunk = Buffer.alloc(256 * 1024, 'x');
  let sent = 0;
  const pump = () => {
    while (sent < BODY_BYTES && !socket.destroyed) {
      sent += chunk.length;
      stats.written += chunk.length;
      if (!socket.write(chunk)) {
        socket.once('drain', pump);
        return;
      }
    }
  };
  pump();
};

async function main() {
  const source = conduitSource();
  const children: Child[] = [];
  const closers: (() => void | Promise<void>)[] = [];
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const child of children.reverse()) await stopChild(child, 10_000).catch(() => {});
      for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => {});
    })());
  const deadline = setTimeout(
    () => {
      log('deadline passed; stopping');
      void cleanup().finally(() => process.exit(2));
    },
    (180 + WINDOW_S * 2) * 1000,
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanup().finally(() => process.exit(130)));

  let missed = false;
  try {
    const bun = process.execPath;
    const baseEnv = { PATH: env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? '/tmp' };
    const fake = await startReadyChild('fake upstream', withOpenFiles([bun, `${import.meta.dir}/fake-upstream.ts`], 65_536), baseEnv);
    children.push(fake.child);
    const vk = await startFakeVk();
    closers.push(() => vk.close());
    vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: VK_TOKEN, confirmationCode: VK_CODE });
    const database = await createBenchDatabase(benchSettings.adminUrl);
    closers.push(() => database.drop());

    const port = freePort();
    const proc = Bun.spawn(withOpenFiles([bun, 'src/index.ts'], 65_536), {
      cwd: source.dir,
      env: {
        ...baseEnv,
        ...conduitEnv(port),
        DATABASE_URL: database.url,
        UPSTREAM_BASE_URL: `http://127.0.0.1:${fake.port}/v1`,
        VK_API_BASE_URL: vk.url,
        ALERT_WEBHOOK_ALLOW_PRIVATE: 'true',
        REGISTRATION_LIMIT_PER_HOUR: '0',
        REGISTRATION_BONUS: '100',
        LOG_REQUESTS: 'false',
        LOG_LEVEL: 'warn',
      },
      stdin: 'ignore',
      stdout: 'inherit',
      stderr: 'inherit',
    });
    const conduit: Child = { name: 'conduit', proc, pid: proc.pid };
    children.push(conduit);
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/health`, 60_000, () => proc.exitCode === null && proc.signalCode === null);
    log(`conduit pid ${proc.pid} on ${url}, ${source.version}`);

    // The accounts: one huge answer, SILENT silent receivers; each alert fires with its first request.
    const huge = await receiver(hugeAnswer);
    closers.push(() => huge.close());
    const silent = await Promise.all(Array.from({ length: SILENT }, () => receiver(() => {})));
    for (const s of silent) closers.push(() => s.close());
    const accounts: { key: string }[] = [];
    for (const [i, hook] of [huge, ...silent].entries()) {
      const user = await request(`${url}/api/auth/register`, { body: { email: `stall-${i}-${Date.now()}@example.com`, password: 'bench-password-1' } });
      await request(`${url}/api/account/alerts`, { method: 'PUT', token: user.token, body: { lowBalanceThreshold: 1000, webhookUrl: hook.url } });
      accounts.push({ key: (await request(`${url}/api/keys`, { token: user.token, body: { name: 'bench' } })).key });
    }
    // The VK community of another account, and a client writing to it.
    const owner = await request(`${url}/api/auth/register`, { body: { email: `stall-vk-${Date.now()}@example.com`, password: 'bench-password-1' } });
    const agent = await request(`${url}/api/agents`, {
      token: owner.token,
      body: { name: 'Салон «Лён»', type: 'creator', model: 'acme/chat', systemPrompt: 'Ты — вежливый администратор салона.' },
    });
    await request(`${url}/api/v1/social/${agent.id}/settings`, {
      method: 'PUT',
      token: owner.token,
      body: { groupId: String(GROUP), accessToken: VK_TOKEN, secretKey: VK_SECRET, confirmationCode: VK_CODE },
    });
    let eventNo = 0;
    /** A client message as VK posts it; resolves with the ms until the community's reply reached VK. */
    const vkReply = async (): Promise<number> => {
      eventNo += 1;
      const peerId = 40_000_000 + eventNo;
      const startedAt = performance.now();
      await request(`${url}/api/v1/social/webhook/${agent.id}`, {
        body: {
          type: 'message_new',
          event_id: `stall-${Date.now()}-${eventNo}`,
          v: '5.199',
          group_id: GROUP,
          secret: VK_SECRET,
          object: {
            message: {
              id: 3000 + eventNo,
              date: Math.floor(Date.now() / 1000),
              peer_id: peerId,
              from_id: peerId,
              text: 'Помощь',
              conversation_message_id: 500 + eventNo,
              out: 0,
              attachments: [],
              fwd_messages: [],
            },
            client_info: { button_actions: ['text', 'callback'], keyboard: true, inline_keyboard: true },
          },
        },
      });
      const limit = startedAt + 120_000;
      while (!vk.sentMessages.some((m) => m.peerId === peerId)) {
        if (performance.now() > limit) return Number.POSITIVE_INFINITY;
        await Bun.sleep(5);
      }
      return performance.now() - startedAt;
    };

    // Warm: every path once (a request, a VK reply), then quiet; idle is the median RSS of the last 3 s.
    // (The warm-up request is the VK owner's, who has no alerts.)
    const ownerKey = (await request(`${url}/api/keys`, { token: owner.token, body: { name: 'warm-up' } })).key as string;
    await request(`${url}/v1/chat/completions`, { token: ownerKey, body: { model: 'acme/chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 } });
    await vkReply();
    await Bun.sleep(2000);
    const idleSamples: number[] = [];
    for (let i = 0; i < 30; i++) {
      idleSamples.push(rssBytes(proc.pid) ?? 0);
      await Bun.sleep(100);
    }
    idleSamples.sort((a, b) => a - b);
    const idle = idleSamples[Math.floor(idleSamples.length / 2)]!;
    log(`idle RSS ${(idle / MB).toFixed(1)} MB; firing ${1 + SILENT} alerts`);

    // The window: VmHWM reset, every account's alert fired at once, RSS sampled, VK replies timed.
    const peakResettable = resetPeakRss(proc.pid);
    let sampledPeak = idle;
    const sampler = setInterval(() => {
      sampledPeak = Math.max(sampledPeak, rssBytes(proc.pid) ?? 0);
    }, 50);
    const windowStart = performance.now();
    // The first request takes each balance (100) under its threshold (1000): one alert event per account.
    await Promise.all(
      accounts.map((a) =>
        request(`${url}/v1/chat/completions`, { token: a.key, body: { model: 'acme/chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 } }),
      ),
    );
    const replies: number[] = [];
    let silentOpenAtReplies = 0;
    while (performance.now() - windowStart < WINDOW_S * 1000) {
      const ms = await vkReply();
      replies.push(ms);
      silentOpenAtReplies = Math.max(
        silentOpenAtReplies,
        silent.reduce((n, s) => n + s.stats.open, 0),
      );
      await Bun.sleep(500);
    }
    clearInterval(sampler);
    const hwm = peakResettable ? peakRssBytes(proc.pid) : null;
    const peak = Math.max(sampledPeak, hwm ?? 0);
    const sorted = [...replies].sort((a, b) => a - b);
    const p50 = sorted[Math.floor(sorted.length / 2)] ?? NaN;
    const max = sorted[sorted.length - 1] ?? NaN;
    const silentCalls = silent.reduce((n, s) => n + s.stats.requests, 0);

    const rssOk = peak - idle <= TARGETS.rssOverIdleMB * MB;
    const vkOk = max < TARGETS.vkReplyMs;
    missed = !rssOk || !vkOk;
    const fmt = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(0)} ms` : 'none within 120 s');
    const lines = [
      `webhook stall — ${source.version}, ${new Date().toISOString()}, window ${WINDOW_S} s`,
      '',
      '| measure | this run | target | verdict |',
      '|---|---|---|---|',
      `| Conduit RSS: idle → peak in the window (${hwm === null ? 'sampled every 50 ms' : 'VmHWM, reset before the window'}) | ${(idle / MB).toFixed(1)} → ${(peak / MB).toFixed(1)} MB (+${((peak - idle) / MB).toFixed(1)} MB) | ≤ +${TARGETS.rssOverIdleMB} MB | ${rssOk ? 'MET' : 'MISS'} |`,
      `| another account's VK reply (${replies.length} during the window) | p50 ${fmt(p50)}, max ${fmt(max)} | < ${TARGETS.vkReplyMs} ms | ${vkOk ? 'MET' : 'MISS'} |`,
      `| the ${BODY_BYTES / 1024 / 1024} MiB answer | ${(huge.stats.written / MB).toFixed(1)} MB written by the receiver before Conduit closed (${huge.stats.closed} of ${huge.stats.requests} connections closed) | a few KB read | |`,
      `| silent receivers | ${silentCalls} calls taken, up to ${silentOpenAtReplies} open at once while replies went out | | |`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    clearTimeout(deadline);
    await cleanup();
  }
  process.exit(missed ? 1 : 0);
}

main().catch((error) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
