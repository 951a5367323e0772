// Claude Code (npm @anthropic-ai/claude-code) in print mode, run as its users run it against a gateway:
// ANTHROPIC_BASE_URL at the app, a Conduit key, a model id, and nothing sent anywhere else (telemetry,
// updates and other traffic off; a fresh HOME so no one's settings or login are read).
//
// The package's bin is a placeholder its postinstall replaces; the real program is the native binary of the
// platform's optional package (@anthropic-ai/claude-code-linux-x64 …), which is run directly, so the
// postinstall need not run. CLAUDE_CODE_BIN names another binary (a copy outside the repository).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The native Claude Code binary; throws, saying how to install it, when there is none. */
export function claudeCodeBinary(): string {
  const override = process.env.CLAUDE_CODE_BIN;
  if (override) return override;
  const platform = `${process.platform}-${process.arch}`;
  const pkg = `@anthropic-ai/claude-code-${platform}`;
  try {
    const dir = dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
    return join(dir, process.platform === 'win32' ? 'claude.exe' : 'claude');
  } catch {
    throw new Error(`Claude Code is not installed: ${pkg} is missing from node_modules (it comes with the devDependency @anthropic-ai/claude-code through npm ci)`);
  }
}

/** What `claude -p … --output-format json` prints. */
export interface ClaudeCodeResult {
  type: 'result';
  subtype: string;
  is_error: boolean;
  api_error_status: number | null;
  result: string;
  num_turns: number;
  usage: { input_tokens: number; output_tokens: number };
}

export interface ClaudeCodeRun {
  /** The app's origin, without /v1: Claude Code appends /v1/messages itself. */
  baseUrl: string;
  key: string;
  model: string;
  prompt: string;
  /** Where it runs (the tools' working directory); a fresh temporary directory by default. */
  cwd?: string;
  /** Tools allowed without asking (print mode cannot ask). */
  allowedTools?: string[];
  /** Send the key as `Authorization: Bearer` (ANTHROPIC_AUTH_TOKEN) instead of `x-api-key`. */
  bearer?: boolean;
  timeoutMs?: number;
}

export async function runClaudeCode(run: ClaudeCodeRun): Promise<{ exitCode: number; output: ClaudeCodeResult; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), 'claude-home-'));
  const cwd = run.cwd ?? mkdtempSync(join(tmpdir(), 'claude-work-'));
  try {
    const args = ['-p', run.prompt, '--model', run.model, '--output-format', 'json'];
    if (run.allowedTools?.length) args.push('--allowedTools', run.allowedTools.join(','));
    const child = Bun.spawn([claudeCodeBinary(), ...args], {
      cwd,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        ANTHROPIC_BASE_URL: run.baseUrl,
        ...(run.bearer ? { ANTHROPIC_AUTH_TOKEN: run.key } : { ANTHROPIC_API_KEY: run.key }),
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        // An error is the test's to see, not to be retried for minutes.
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
      timeout: run.timeoutMs ?? 60_000,
    });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    let output: ClaudeCodeResult;
    try {
      output = JSON.parse(stdout) as ClaudeCodeResult;
    } catch {
      throw new Error(`Claude Code printed no result (exit ${exitCode}): ${stdout.slice(0, 2000)} ${stderr.slice(0, 2000)}`);
    }
    return { exitCode, output, stderr };
  } finally {
    rmSync(home, { recursive: true, force: true });
    if (!run.cwd) rmSync(cwd, { recursive: true, force: true });
  }
}
