import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, priceToNano } from '../../src/config';
import { resolveWorkers } from '../../src/workers-config';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'conduit-config-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const goodSecrets = { JWT_SECRET: 'j'.repeat(40), ENCRYPTION_KEY: 'ab'.repeat(32) };

describe('configuration', () => {
  test('defaults of decisions.md', () => {
    const { config } = loadConfig({ ...goodSecrets, DATA_DIR: tempDir() });
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.upstreamBaseUrl).toBe('https://openrouter.ai/api/v1');
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
    expect(config.tokenPrice).toBe(1.25e-7);
    expect(config.tokenPriceNano).toBe(125n);
    // Raw usage rows are kept unless an operator asks otherwise.
    expect(config.usageRetentionDays).toBe(0);
    expect(config.vkApiBaseUrl).toBe('https://api.vk.com/method');
    expect(config.telegramApiBaseUrl).toBe('https://api.telegram.org');
    expect(config.yclientsBaseUrl).toBe('https://api.yclients.com/api/v1');
    expect(config.bodyLimitBytes).toBe(10 * 1024 * 1024);
    expect(config.orderTimeZone).toBe('Europe/Moscow');
    expect(config.assistantMaxSteps).toBe(6);
    // Generous password-reset limits: an honest user never meets them.
    expect(config.passwordResetLimitPerEmail).toBe(5);
    expect(config.passwordResetLimitPerAddress).toBe(30);
  });

  test('ASSISTANT_MAX_STEPS: a model call at least, fifty at most', () => {
    expect(loadConfig({ ...goodSecrets, DATA_DIR: tempDir(), ASSISTANT_MAX_STEPS: '3' }).config.assistantMaxSteps).toBe(3);
    for (const bad of ['0', '51', 'many']) {
      expect(() => loadConfig({ ...goodSecrets, DATA_DIR: tempDir(), ASSISTANT_MAX_STEPS: bad })).toThrow(/ASSISTANT_MAX_STEPS/);
    }
  });

  test('token prices convert to exact nano-units', () => {
    expect(priceToNano(1.25e-7)).toBe(125n);
    expect(priceToNano(0.000002)).toBe(2000n);
    expect(priceToNano(1)).toBe(1_000_000_000n);
    expect(() => priceToNano(1.5e-10)).toThrow(ConfigError);
  });

  test('without secrets outside production: generated once into DATA_DIR (mode 0600) and reused', () => {
    const dir = tempDir();
    const first = loadConfig({ DATA_DIR: dir });
    expect(first.warnings.join(' ')).toContain('JWT_SECRET');
    const file = join(dir, 'secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.config.encryptionKey).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.byteLength(first.config.jwtSecret)).toBeGreaterThanOrEqual(32);
    const second = loadConfig({ DATA_DIR: dir });
    expect(second.warnings).toEqual([]);
    expect(second.config.jwtSecret).toBe(first.config.jwtSecret);
    expect(second.config.encryptionKey).toBe(first.config.encryptionKey);
    expect(JSON.parse(readFileSync(file, 'utf8')).jwtSecret).toBe(first.config.jwtSecret);
  });

  test('a set secret wins over the generated one', () => {
    const dir = tempDir();
    loadConfig({ DATA_DIR: dir });
    expect(loadConfig({ DATA_DIR: dir, ...goodSecrets }).config.jwtSecret).toBe(goodSecrets.JWT_SECRET);
  });

  test('production without secrets stops start-up naming them', () => {
    const run = () => loadConfig({ NODE_ENV: 'production', DATA_DIR: tempDir(), PUBLIC_BASE_URL: 'https://x.example' });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(/JWT_SECRET and ENCRYPTION_KEY/);
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: goodSecrets.JWT_SECRET, PUBLIC_BASE_URL: 'https://x.example' })).toThrow(/ENCRYPTION_KEY/);
  });

  test('production requires an https PUBLIC_BASE_URL', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ...goodSecrets })).toThrow(/PUBLIC_BASE_URL/);
    expect(loadConfig({ NODE_ENV: 'production', ...goodSecrets, PUBLIC_BASE_URL: 'https://c.example/' }).config.publicBaseUrl).toBe('https://c.example');
  });

  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['ENCRYPTION_KEY', 'abcd'],
    ['ENCRYPTION_KEY', 'z'.repeat(64)],
    ['JWT_SECRET', 'short'],
    ['DATABASE_URL', 'mysql://x'],
    ['TOKEN_PRICE', '-1'],
    ['UPSTREAM_BASE_URL', 'not a url'],
    ['BODY_LIMIT_BYTES', '12kb'],
    ['UPSTREAM_MAX_BODY_BYTES', '32mb'],
    ['UPSTREAM_MAX_BODY_BYTES', '0'],
    ['UPSTREAM_MAX_BODY_BYTES', '1e12'],
    ['ORDER_TIME_ZONE', 'Mars/Olympus'],
    ['MODELS_CACHE_SECONDS', '0'],
    ['RATE_LIMIT_PER_USER_PER_MINUTE', '-1'],
    ['RATE_LIMIT_PER_USER_PER_MINUTE', '1.5'],
    ['RATE_LIMIT_PER_USER_PER_MINUTE', 'ten'],
    ['RATE_LIMIT_PER_USER_PER_MINUTE', '1000001'],
    ['USAGE_RETENTION_DAYS', '-1'],
    ['USAGE_RETENTION_DAYS', '30d'],
    ['USAGE_RETENTION_DAYS', '1.5'],
    ['PASSWORD_RESET_LIMIT_PER_EMAIL', '-1'],
    ['PASSWORD_RESET_LIMIT_PER_ADDRESS', 'many'],
    ['WORKERS', '0'],
    ['WORKERS', '-2'],
    ['WORKERS', '1.5'],
    ['WORKERS', '65'],
    ['WORKERS', 'all'],
  ])('a bad %s (%s) stops start-up naming the variable', (name, value) => {
    expect(() => loadConfig({ ...goodSecrets, DATA_DIR: tempDir(), [name]: value })).toThrow(new RegExp(name));
  });

  test('empty values count as unset', () => {
    const { config } = loadConfig({ ...goodSecrets, DATA_DIR: tempDir(), PORT: '', DATABASE_URL: '' });
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeUndefined();
  });

  test('WORKERS: 1 by default; a number or auto (one per core) on PostgreSQL; 1 on the embedded database, with a reason when a number asked for more', () => {
    const postgres = 'postgres://postgres@127.0.0.1:5432/test';
    expect(loadConfig({ ...goodSecrets, DATA_DIR: tempDir(), DATABASE_URL: postgres }).config.workers).toEqual({ count: 1, asked: '1', note: null });
    expect(loadConfig({ ...goodSecrets, DATA_DIR: tempDir(), DATABASE_URL: postgres, WORKERS: '3' }).config.workers.count).toBe(3);
    expect(loadConfig({ ...goodSecrets, DATA_DIR: tempDir(), DATABASE_URL: postgres, WORKERS: ' Auto ' }).config.workers.asked).toBe('auto');
    expect(resolveWorkers('auto', true, 6)).toEqual({ count: 6, asked: 'auto', note: null });
    expect(resolveWorkers('auto', true, 200).count).toBe(64);
    expect(resolveWorkers('auto', false, 6)).toEqual({ count: 1, asked: 'auto', note: null });
    const embedded = loadConfig({ ...goodSecrets, DATA_DIR: tempDir(), WORKERS: '4' }).config.workers;
    expect(embedded.count).toBe(1);
    expect(embedded.note).toContain('DATABASE_URL');
    expect(loadConfig({ ...goodSecrets, DATA_DIR: tempDir() }).config.workerNumber).toBeNull();
  });
});
