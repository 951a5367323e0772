// Runs the real entry point (what `npm start` runs) as a child process and reads its JSON log.
import type { Subprocess } from 'bun';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../../src/index.ts', import.meta.url));

export interface ServerProcess {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>;
  url: string;
  lines: Record<string, unknown>[];
  stop(signal?: NodeJS.Signals): Promise<number>;
}

export async function spawnServer(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const proc = Bun.spawn([process.execPath, ENTRY], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: '0', HOST: '127.0.0.1', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const lines: Record<string, unknown>[] = [];
  let url: string | undefined;
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let resolveUrl: (u: string) => void = () => {};
  const urlReady = new Promise<string>((resolve) => (resolveUrl = resolve));
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          const record = JSON.parse(line) as Record<string, unknown>;
          lines.push(record);
          if (record.msg === 'listening' && typeof record.url === 'string') {
            url = (record.url as string).replace('0.0.0.0', '127.0.0.1');
            resolveUrl(url);
          }
        } catch {
          lines.push({ raw: line });
        }
      }
    }
  })();
  const exited = proc.exited.then(async (code) => {
    throw new Error(`server exited with ${code} before listening: ${await new Response(proc.stderr).text()}`);
  });
  const timer = Bun.sleep(timeoutMs).then(() => {
    throw new Error('server did not start in time');
  });
  await Promise.race([urlReady, exited, timer]);
  return {
    proc,
    url: url!,
    lines,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      proc.kill(signal);
      return proc.exited;
    },
  };
}

/** Runs the entry point expecting it to refuse to start; returns its exit code and stderr. */
export async function runToFailure(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const proc = Bun.spawn([process.execPath, ENTRY], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, stderr: await new Response(proc.stderr).text() };
}
