// POST /v1/audio/transcriptions driven by the official OpenAI SDK (audio.transcriptions.create, toFile)
// against the fake upstream: the multipart form relayed, each response_format answered, the 25 MB limit of
// this route alone, missing fields, per-second billing to the nano-unit (the operator's per_second price),
// token billing, failover to a second provider, and the usage row.
import { beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { toFile } from 'openai';
import type { FakeUpstream } from '../fakes/upstream';
import { AUDIO_SECONDS, TRANSCRIPT, TRANSCRIPTION_TOKENS, type RecordedForm } from '../fakes/upstream-audio';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { balanceNanoInDb, openaiClient, settleAll, START_NANO, unbalancedUsers, usageRows } from '../helpers/gateway';
import { routingHarness } from '../helpers/routing';

setDefaultTimeout(30_000);

const ADMIN = uniqueEmail('audio-admin');
// A small general body limit: the transcription route takes far more, every other route still refuses it.
const BODY_LIMIT = 65_536;
const routing = routingHarness((home) => ({ UPSTREAM_BASE_URL: home, ADMIN_EMAILS: ADMIN, BODY_LIMIT_BYTES: String(BODY_LIMIT) }), ADMIN);
let app: TestApp;
let home: FakeUpstream;
beforeAll(() => {
  app = routing.app;
  home = routing.home;
});
beforeEach(() => home.reset());

/** 0.000123457 a second of audio: per-second costs land on odd nano-units. */
const PER_SECOND_NANO = 123_457n;

/** A 16 kHz 16-bit mono WAV of `seconds` of silence (its header says so). */
function wav(seconds: number): Uint8Array<ArrayBuffer> {
  const dataBytes = Math.round(seconds * 32_000);
  const out = new Uint8Array(44 + dataBytes);
  const v = new DataView(out.buffer);
  const text = (at: number, s: string) => [...s].forEach((c, i) => (out[at + i] = c.charCodeAt(0)));
  text(0, 'RIFF');
  v.setUint32(4, 36 + dataBytes, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, 16_000, true);
  v.setUint32(28, 32_000, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  text(36, 'data');
  v.setUint32(40, dataBytes, true);
  for (let i = 44; i < out.length; i += 97) out[i] = i % 251;
  return out;
}

async function customer() {
  const c = await routing.customer();
  return { ...c, client: openaiClient(app, c.key) };
}

async function perSecondPrice(pattern: string, perSecond = PER_SECOND_NANO) {
  const res = await routing.adminCall('PUT', '/api/admin/prices', { pattern, kind: 'per_second', perSecond: Number(perSecond) / 1e9 });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ pattern, kind: 'per_second', perSecond: Number(perSecond) / 1e9 });
}

const transcriptionCalls = (f: FakeUpstream) => f.requests.filter((r) => r.path === '/v1/audio/transcriptions');
const formOf = (f: FakeUpstream, i = 0) => transcriptionCalls(f)[i]!.body as RecordedForm;

/** The customer's audio rows: cost, seconds, tokens. */
async function audioRows(userId: string) {
  const rows = await usageRows(app, userId);
  return rows.map((r) => ({
    endpoint: (r as unknown as { endpoint: string }).endpoint,
    model: r.model,
    status: r.status,
    audioMs: (r as unknown as { audio_ms: number | null }).audio_ms,
    prompt: r.prompt_tokens,
    completion: r.completion_tokens,
    cost: BigInt(r.cost_nano as string),
    source: r.usage_source,
    provider: (r as unknown as { provider_id: string | null }).provider_id,
    attempts: (r as unknown as { attempts: number | null }).attempts,
  }));
}

describe('transcriptions through the SDK', () => {
  test('json: the file and fields reach the provider as multipart; billed per second the provider reports, to the nano-unit', async () => {
    await perSecondPrice('acme/whisper');
    const c = await customer();
    const audio = wav(3);
    const result = await c.client.audio.transcriptions.create({
      file: await toFile(audio, 'voice.wav', { type: 'audio/wav' }),
      model: 'acme/whisper',
      language: 'ru',
      prompt: 'Салон «Лён»',
      temperature: 0.2,
    });
    expect(result.text).toBe(TRANSCRIPT);
    // The provider says the audio was ⌈7.25⌉ = 8 s: that is what the client pays for.
    const cost = 8n * PER_SECOND_NANO;
    expect(result.usage).toEqual({ type: 'duration', seconds: 8, cost: Number(cost) / 1e9 } as unknown as typeof result.usage);

    const form = formOf(home);
    expect(form.file!.name).toBe('voice.wav');
    expect(form.file!.bytes).toEqual(audio);
    expect(form.fields).toEqual({ model: 'acme/whisper', response_format: 'json', language: 'ru', prompt: 'Салон «Лён»', temperature: '0.2' });

    expect(await audioRows(c.userId)).toEqual([
      {
        endpoint: 'audio_transcriptions',
        model: 'acme/whisper',
        status: 'ok',
        audioMs: 8000,
        prompt: 0,
        completion: 0,
        cost,
        source: 'upstream',
        provider: 'default',
        attempts: 1,
      },
    ]);
    await settleAll(app);
    expect(await balanceNanoInDb(app, c.userId)).toBe(START_NANO - cost);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('verbose_json: duration and segments as the provider gave them, with the cost in usage', async () => {
    await perSecondPrice('acme/whisper-verbose');
    const c = await customer();
    const result = await c.client.audio.transcriptions.create({
      file: await toFile(wav(2), 'voice.wav'),
      model: 'acme/whisper-verbose',
      response_format: 'verbose_json',
      timestamp_granularities: ['segment'],
    });
    expect(result.text).toBe(TRANSCRIPT);
    expect(result.duration).toBe(AUDIO_SECONDS);
    expect(result.segments?.[0]).toMatchObject({ start: 0, end: AUDIO_SECONDS });
    expect(result.usage).toEqual({ type: 'duration', seconds: 8, cost: Number(8n * PER_SECOND_NANO) / 1e9 } as unknown as typeof result.usage);
    expect(formOf(home).fields).toMatchObject({ response_format: 'verbose_json', 'timestamp_granularities[]': 'segment' });
  });

  test('text of a per-second model: asked as verbose_json for its duration, answered as text; no usage reported → billed by the duration', async () => {
    // fake/no-usage reports no usage: verbose_json's duration, 7.25 s, is what is billed.
    await perSecondPrice('fake/no-usage');
    const c = await customer();
    const result = await c.client.audio.transcriptions.create({ file: await toFile(wav(2), 'voice.wav'), model: 'fake/no-usage', response_format: 'text' });
    expect(result as unknown as string).toBe(`${TRANSCRIPT}\n`);
    expect(formOf(home).fields.response_format).toBe('verbose_json');
    // 7 250 ms × 123 457 / 1 000 = 895 063.25 → rounded up once.
    const cost = (7250n * PER_SECOND_NANO + 999n) / 1000n;
    expect(cost).toBe(895_064n);
    const [row] = await audioRows(c.userId);
    expect(row).toMatchObject({ audioMs: 7250, cost, source: 'upstream' });
  });

  test('srt and vtt: cues made from the provider’s segments', async () => {
    await perSecondPrice('acme/whisper-subtitles');
    const c = await customer();
    const srt = await c.client.audio.transcriptions.create({ file: await toFile(wav(1), 'a.wav'), model: 'acme/whisper-subtitles', response_format: 'srt' });
    expect(srt as unknown as string).toBe(`1\n00:00:00,000 --> 00:00:07,250\n${TRANSCRIPT}\n`);
    const vtt = await c.client.audio.transcriptions.create({ file: await toFile(wav(1), 'a.wav'), model: 'acme/whisper-subtitles', response_format: 'vtt' });
    expect(vtt as unknown as string).toBe(`WEBVTT\n\n00:00:00.000 --> 00:00:07.250\n${TRANSCRIPT}\n`);
  });

  test('a token-priced model: billed by usage.input_tokens and output_tokens at its token prices; text asked as json', async () => {
    const c = await customer();
    const json = await c.client.audio.transcriptions.create({ file: await toFile(wav(1), 'a.wav'), model: 'fake/gpt-4o-transcribe' });
    const tokens = TRANSCRIPTION_TOKENS.input + TRANSCRIPTION_TOKENS.output;
    // No price row: TOKEN_PRICE, 125 nano a token both ways.
    const cost = BigInt(tokens) * 125n;
    expect(json.usage).toMatchObject({
      type: 'tokens',
      input_tokens: TRANSCRIPTION_TOKENS.input,
      output_tokens: TRANSCRIPTION_TOKENS.output,
      cost: Number(cost) / 1e9,
    });
    const text = await c.client.audio.transcriptions.create({ file: await toFile(wav(1), 'a.wav'), model: 'fake/gpt-4o-transcribe', response_format: 'text' });
    expect(text as unknown as string).toBe(`${TRANSCRIPT}\n`);
    expect(formOf(home, 1).fields.response_format).toBe('json');
    const rows = await audioRows(c.userId);
    expect(rows.map((r) => [r.prompt, r.completion, r.cost, r.source])).toEqual([
      [TRANSCRIPTION_TOKENS.input, TRANSCRIPTION_TOKENS.output, cost, 'upstream'],
      [TRANSCRIPTION_TOKENS.input, TRANSCRIPTION_TOKENS.output, cost, 'upstream'],
    ]);
  });

  test('the reservation is the header’s length: a balance that cannot pay for it is refused before the provider is asked', async () => {
    await perSecondPrice('acme/whisper-dear', 1_000_000_000n);
    const c = await customer();
    // 3.00 on the balance, 1.00 a second: a 5 s file reserves 6 s and is refused; the provider hears nothing.
    const refused = await c.client.audio.transcriptions.create({ file: await toFile(wav(5), 'a.wav'), model: 'acme/whisper-dear' }).catch((e) => e);
    expect(refused.status).toBe(402);
    expect(transcriptionCalls(home)).toHaveLength(0);
  });
});

/** An Ogg Opus file whose last page's granule position says `seconds` (after the 312-sample pre-skip). */
function ogg(seconds: number): Uint8Array<ArrayBuffer> {
  const page = (type: number, granule: bigint, data: number[]) => {
    const head = new Uint8Array(28);
    const v = new DataView(head.buffer);
    head.set([0x4f, 0x67, 0x67, 0x53], 0);
    head[5] = type;
    v.setBigInt64(6, granule, true);
    v.setUint32(14, 0x5eed, true);
    head[26] = 1;
    head[27] = data.length;
    return [...head, ...data];
  };
  const opusHead = [...'OpusHead'].map((c) => c.charCodeAt(0)).concat([1, 1, 312 & 0xff, 312 >> 8, 0x80, 0xbb, 0, 0, 0, 0, 0]);
  const audio = Array.from({ length: 200 }, (_, i) => i % 256);
  return new Uint8Array([...page(2, 0n, opusHead), ...page(0, 1000n, audio), ...page(4, BigInt(seconds * 48_000 + 312), audio.slice(0, 50))]);
}

/** A constant 128 kbit/s MPEG-1 layer III stream of `seconds` (the first frame's header says the rate). */
function mp3(seconds: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array((seconds * 128_000) / 8);
  out.set([0xff, 0xfb, 0x90, 0xc4], 0);
  return out;
}

/** A WebM file whose Segment Info says `seconds` (TimecodeScale 1 ms, Duration as a float64). */
function webm(seconds: number): Uint8Array<ArrayBuffer> {
  const duration = new Uint8Array(8);
  new DataView(duration.buffer).setFloat64(0, seconds * 1000);
  return new Uint8Array([
    ...[0x1a, 0x45, 0xdf, 0xa3, 0x87, 0x42, 0x82, 0x84, ...[...'webm'].map((c) => c.charCodeAt(0))],
    ...[0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
    ...[0x15, 0x49, 0xa9, 0x66, 0x92, 0x2a, 0xd7, 0xb1, 0x83, 0x0f, 0x42, 0x40, 0x44, 0x89, 0x88, ...duration],
    ...[0x1f, 0x43, 0xb6, 0x75, 0x84, 1, 2, 3, 4],
  ]);
}

describe('reservation by the file’s own length', () => {
  // 0.5 a second against the 3.00 a new account has: a 4 s file reserves 5 s (2.50); one whose length
  // cannot be read reserves AUDIO_MAX_SECONDS (1 500 s) and is refused.
  const files: [string, Uint8Array<ArrayBuffer>][] = [
    ['voice.wav', wav(4)],
    ['voice.ogg', ogg(4)],
    ['voice.mp3', mp3(4)],
    ['voice.webm', webm(4)],
  ];
  for (const [name, bytes] of files) {
    test(`${name}: its header’s 4 s are reserved, so the request goes through`, async () => {
      await perSecondPrice('acme/whisper-half', 500_000_000n);
      const c = await customer();
      const result = await c.client.audio.transcriptions.create({ file: await toFile(bytes, name), model: 'acme/whisper-half' });
      expect(result.text).toBe(TRANSCRIPT);
    });
  }

  test('a file whose length cannot be read reserves AUDIO_MAX_SECONDS: refused with 402 before the provider is asked', async () => {
    await perSecondPrice('acme/whisper-half', 500_000_000n);
    const c = await customer();
    const error = await c.client.audio.transcriptions
      .create({ file: await toFile(new Uint8Array(4096).fill(7), 'voice.bin'), model: 'acme/whisper-half' })
      .catch((e) => e);
    expect(error.status).toBe(402);
    expect(transcriptionCalls(home)).toHaveLength(0);
  });
});

describe('usage', () => {
  test('/api/usage and its export filter by endpoint audio_transcriptions and show the seconds billed', async () => {
    await perSecondPrice('acme/whisper-usage');
    const c = await customer();
    await c.client.chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] });
    await c.client.audio.transcriptions.create({ file: await toFile(wav(1), 'a.wav'), model: 'acme/whisper-usage' });
    await app.instance.services.billing.flush();
    const all = await call(app.url, 'GET', '/api/usage', { token: c.token });
    expect(all.body.data.map((r: { endpoint: string }) => r.endpoint)).toEqual(['audio_transcriptions', 'chat']);
    const audio = await call(app.url, 'GET', '/api/usage?endpoint=audio_transcriptions', { token: c.token });
    expect(audio.status).toBe(200);
    expect(audio.body.data).toEqual([
      expect.objectContaining({ endpoint: 'audio_transcriptions', model: 'acme/whisper-usage', audioSeconds: 8, cost: Number(8n * PER_SECOND_NANO) / 1e9 }),
    ]);
    expect(audio.body.totals).toMatchObject({ requests: 1, cost: Number(8n * PER_SECOND_NANO) / 1e9 });
    const csv = await fetch(`${app.url}/api/usage/export?endpoint=audio_transcriptions`, { headers: { authorization: `Bearer ${c.token}` } });
    expect(csv.status).toBe(200);
    const [header, line, end] = (await csv.text()).replace(/^\uFEFF/, '').split('\r\n');
    expect(end).toBe('');
    const row = Object.fromEntries(header!.split(',').map((name, i) => [name, line!.split(',')[i]]));
    expect(row).toMatchObject({ endpoint: 'audio_transcriptions', model: 'acme/whisper-usage', audio_seconds: '8', cost: '0.000987656' });
    const wrong = await call(app.url, 'GET', '/api/usage?endpoint=speech', { token: c.token });
    expect(wrong.status).toBe(400);
  });

  test('an Idempotency-Key repeat gets the stored answer: one provider call, one charge', async () => {
    await perSecondPrice('acme/whisper-once');
    const c = await customer();
    const ask = async () =>
      c.client.audio.transcriptions.create({ file: await toFile(wav(1), 'a.wav'), model: 'acme/whisper-once' }, { headers: { 'Idempotency-Key': 'voice-42' } });
    const first = await ask();
    const again = await ask();
    expect(again).toEqual(first);
    expect(transcriptionCalls(home)).toHaveLength(1);
    expect(await audioRows(c.userId)).toHaveLength(1);
  });
});

describe('limits and refusals', () => {
  test('this route takes files far past BODY_LIMIT_BYTES; another route still refuses such a body', async () => {
    await perSecondPrice('acme/whisper-big');
    const c = await customer();
    const big = wav(30); // ~960 KB
    const result = await c.client.audio.transcriptions.create({ file: await toFile(big, 'long.wav'), model: 'acme/whisper-big' });
    expect(result.text).toBe(TRANSCRIPT);
    expect(formOf(home).file!.bytes.length).toBe(big.length);
    const chat = await call(app.url, 'POST', '/v1/chat/completions', {
      token: c.key,
      body: { model: 'acme/chat', messages: [{ role: 'user', content: 'x'.repeat(BODY_LIMIT) }] },
    });
    expect(chat.status).toBe(413);
  });

  test('a file over 25 MB: 413 in our error shape, nothing reserved or sent', async () => {
    const c = await customer();
    const tooBig = new Uint8Array(25 * 1024 * 1024 + 1);
    const error = await c.client.audio.transcriptions.create({ file: await toFile(tooBig, 'huge.wav'), model: 'acme/whisper' }).catch((e) => e);
    expect(error.status).toBe(413);
    expect(error.error).toMatchObject({ type: 'payload_too_large', param: 'file' });
    expect(error.error.message).toContain('25 МБ');
    // A body far past the route's limit is refused by its declared length.
    const form = new FormData();
    form.append('model', 'acme/whisper');
    form.append('file', new Blob([new Uint8Array(26 * 1024 * 1024)]), 'huger.wav');
    const res = await fetch(`${app.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${c.key}` }, body: form });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('payload_too_large');
    expect(transcriptionCalls(home)).toHaveLength(0);
    expect(await usageRows(app, c.userId)).toEqual([]);
  });

  test('missing file or model, an unknown response_format, stream, a body that is not a form: 400 in Russian', async () => {
    const c = await customer();
    const send = async (fields: Record<string, string>, file = true) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      if (file) form.append('file', new Blob([wav(1)]), 'a.wav');
      const res = await fetch(`${app.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${c.key}` }, body: form });
      return { status: res.status, error: ((await res.json()) as { error: { message: string; type: string; param: string | null } }).error };
    };
    expect(await send({ model: 'acme/whisper' }, false)).toEqual({
      status: 400,
      error: expect.objectContaining({ type: 'invalid_request_error', param: 'file', message: 'Приложите аудиофайл в поле file' }),
    });
    expect(await send({})).toEqual({ status: 400, error: expect.objectContaining({ param: 'model', message: expect.stringContaining('Укажите model') }) });
    expect(await send({ model: 'whisper' })).toEqual({ status: 400, error: expect.objectContaining({ param: 'model' }) });
    expect(await send({ model: 'acme/whisper', response_format: 'docx' })).toEqual({
      status: 400,
      error: expect.objectContaining({ param: 'response_format', message: expect.stringContaining('verbose_json') }),
    });
    expect(await send({ model: 'acme/whisper', stream: 'true' })).toEqual({ status: 400, error: expect.objectContaining({ param: 'stream' }) });
    const json = await call(app.url, 'POST', '/v1/audio/transcriptions', { token: c.key, body: { model: 'acme/whisper' } });
    expect(json.status).toBe(400);
    expect(json.body.error.message).toContain('multipart/form-data');
    const anonymous = await fetch(`${app.url}/v1/audio/transcriptions`, { method: 'POST', body: new FormData() });
    expect(anonymous.status).toBe(401);
    expect(transcriptionCalls(home)).toHaveLength(0);
  });
});

describe('routes', () => {
  test('a failing provider: the next one answers with the route target’s model id; charged once, the row names it', async () => {
    await perSecondPrice('acme/routed-whisper');
    const down = await routing.fake();
    down.outage = 503;
    const up = await routing.fake();
    const first = await routing.addProvider(down.url);
    const second = await routing.addProvider(up.url);
    await routing.setRoute('acme/routed-whisper', [
      { providerId: first, priority: 0, model: 'fake/whisper-a' },
      { providerId: second, priority: 1, model: 'fake/whisper-b' },
    ]);
    const c = await customer();
    const audio = wav(2);
    const result = await c.client.audio.transcriptions.create({ file: await toFile(audio, 'a.wav'), model: 'acme/routed-whisper' });
    expect(result.text).toBe(TRANSCRIPT);
    expect(formOf(down).fields.model).toBe('fake/whisper-a');
    const form = formOf(up);
    expect(form.fields.model).toBe('fake/whisper-b');
    expect(form.file!.bytes).toEqual(audio);
    const rows = await audioRows(c.userId);
    expect(rows).toEqual([expect.objectContaining({ provider: second, attempts: 2, cost: 8n * PER_SECOND_NANO, audioMs: 8000 })]);
    await settleAll(app);
    expect(await balanceNanoInDb(app, c.userId)).toBe(START_NANO - 8n * PER_SECOND_NANO);
  });

  test('/v1/models shows a per-second model’s price a second', async () => {
    await perSecondPrice('acme/whisper-listed', 100_000n);
    home.models.push({ id: 'acme/whisper-listed', created: 1_700_000_200, owned_by: 'acme' });
    const res = await call(app.url, 'GET', '/v1/models/acme%2Fwhisper-listed');
    expect(res.status).toBe(200);
    expect(res.body.pricing).toEqual({ prompt: '0', completion: '0', audio_second: '0.0001' });
    // The operator's log says it in Russian.
    const audit = await routing.adminCall('GET', '/api/admin/audit?targetId=acme%2Fwhisper-listed');
    const texts = audit.body.data[0].changes.map((c: { text: string }) => c.text.replace(/[\u00a0\u202f]/g, ' '));
    expect(texts).toEqual(expect.arrayContaining(['вид цены: за секунду аудио', 'секунда аудио: 0,0001 ₽ за секунду аудио']));
  });
});
