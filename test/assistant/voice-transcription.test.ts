// VK voice messages that arrive without VK's transcript (issue 43 point 3), over the callback webhook with the
// fake VK (which also serves the voice messages' audio, as VK's CDN does), the scripted model and a fake
// transcription provider the operator routed the transcription model to: with the owner's switch on, the
// audio is downloaded and transcribed through the gateway, billed to the owner, and the model answers the
// words as if typed; with it off (the default), or when transcription fails, the client is asked to write.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { lastUserText, startScriptedModelHost, type ScriptedModelHost } from '../fakes/scripted-model';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { AUDIO_SECONDS, TRANSCRIPT, type RecordedForm } from '../fakes/upstream-audio';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { balanceNanoInDb, settleAll, START_NANO, unbalancedUsers } from '../helpers/gateway';
import { CLIENT, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const NOT_HEARD = 'Не расслышал, напишите, пожалуйста, текстом.';
const ADMIN = uniqueEmail('voice-admin');
/** TRANSCRIPTION_MODEL's default, routed by the operator to the fake transcription provider. */
const TRANSCRIPTION_MODEL = 'openai/whisper-1';
/** 0.0001 a second of audio. */
const PER_SECOND_NANO = 100_000n;

let vk: FakeVk;
let model: ScriptedModelHost;
let speech: FakeUpstream;
let app: TestApp;
let modelCounter = 0;

beforeAll(async () => {
  [vk, model, speech] = await Promise.all([startFakeVk(), startScriptedModelHost(), startFakeUpstream()]);
  app = await startTestApp({
    env: {
      VK_API_BASE_URL: vk.url,
      UPSTREAM_BASE_URL: model.url,
      // Only the fake VK's CDN: any other link in a message is not downloaded.
      VK_AUDIO_BASE_URLS: vk.cdnUrl,
      ADMIN_EMAILS: ADMIN,
      OUTBOX_POLL_INTERVAL_MS: '100',
    },
  });
  const admin = (await registerAdmin(app, ADMIN)).token;
  const provider = await call(app.url, 'POST', '/api/admin/providers', { token: admin, body: { name: 'speech', baseUrl: speech.url } });
  expect(provider.status).toBe(201);
  const route = await call(app.url, 'PUT', '/api/admin/routes', {
    token: admin,
    body: { pattern: TRANSCRIPTION_MODEL, targets: [{ providerId: provider.body.id }] },
  });
  expect(route.status).toBe(200);
  const own = await call(app.url, 'PUT', '/api/admin/routes', { token: admin, body: { pattern: 'acme/speech-*', targets: [{ providerId: provider.body.id }] } });
  expect(own.status).toBe(200);
  const price = await call(app.url, 'PUT', '/api/admin/prices', {
    token: admin,
    body: { pattern: TRANSCRIPTION_MODEL, kind: 'per_second', perSecond: Number(PER_SECOND_NANO) / 1e9 },
  });
  expect(price.status).toBe(200);
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), model?.close(), speech?.close()]);
});
beforeEach(() => {
  vk.reset();
  speech.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
});

/** An agent with its own model, connected to the community; `settings` are its own (transcribeVoice…). */
async function connectedAgent(settings: Record<string, unknown> = {}) {
  const owner = await registerUser(app.url);
  const modelId = `acme/voice-${++modelCounter}`;
  const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Салон «Лён»', type: 'creator', model: modelId } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  if (Object.keys(settings).length > 0) {
    const patched = await call(app.url, 'PATCH', `/api/agents/${agentId}`, { token: owner.token, body: settings });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject(settings);
  }
  const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(saved.status).toBe(200);
  model.script(modelId, (body) => ({ text: `Вы сказали: «${lastUserText(body)}». Записываю!` }));
  return { owner, agentId, modelId };
}

const driver = createSocialDriver(
  () => app,
  () => vk,
);

/** Bytes of a voice message as VK's CDN serves them (their content does not matter to the fake provider). */
const AUDIO = new Uint8Array(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256));

/** A voice message without VK's transcript, its audio on the fake CDN. */
function voiceWithoutTranscript(name: string) {
  const link = vk.addVoiceFile(name, AUDIO);
  return driver.messageNew('', {
    attachments: [
      {
        type: 'audio_message',
        audio_message: { id: 456239017, owner_id: CLIENT, duration: 7, waveform: [0, 3, 17], link_ogg: link, link_mp3: `${link}.mp3`, access_key: 'k' },
      },
    ],
  });
}

const transcriptionCalls = () => speech.requests.filter((r) => r.path === '/v1/audio/transcriptions');

async function ownerRows(userId: string) {
  await app.instance.services.billing.flush();
  return app.sql<{ endpoint: string; model: string; agent_id: string | null; api_key_id: string | null; cost_nano: string; audio_ms: number | null; status: string }>(
    'select endpoint, model, agent_id, api_key_id, cost_nano::text as cost_nano, audio_ms, status from usage_records where user_id = $1 order by id',
    [userId],
  );
}

describe('a voice message without VK’s transcript', () => {
  test('transcription on: the audio goes to the provider, the model gets the words, the client the answer; the owner pays for both', async () => {
    const { owner, agentId, modelId } = await connectedAgent({ transcribeVoice: true });
    const [answer] = await driver.sendAndWait(agentId, voiceWithoutTranscript('voice-on.ogg'));
    expect(answer!.message).toBe(`Вы сказали: «${TRANSCRIPT}». Записываю!`);

    expect(vk.voiceDownloads).toEqual(['voice-on.ogg']);
    const [sent] = transcriptionCalls();
    const form = sent!.body as RecordedForm;
    expect(form.file!.bytes).toEqual(AUDIO);
    expect(form.fields).toMatchObject({ model: TRANSCRIPTION_MODEL, response_format: 'json' });
    expect(lastUserText(model.requestsFor(modelId)[0]!.body)).toBe(TRANSCRIPT);

    // The owner's inbox shows what the client said, not «[голосовое сообщение]».
    const turns = await app.sql<{ role: string; content: string }>(
      'select m.role, m.content from dialogue_messages m join dialogues d on d.id = m.dialogue_id where d.agent_id = $1 order by m.id',
      [agentId],
    );
    expect(turns.map((t) => [t.role, t.content])).toEqual([
      ['user', TRANSCRIPT],
      ['assistant', answer!.message],
    ]);

    // Billed to the owner as the assistant's answers are: the agent named, no API key; ⌈7.25⌉ = 8 s.
    const rows = await ownerRows(owner.userId);
    const transcription = rows.find((r) => r.endpoint === 'audio_transcriptions');
    expect(transcription).toEqual({
      endpoint: 'audio_transcriptions',
      model: TRANSCRIPTION_MODEL,
      agent_id: agentId,
      api_key_id: null,
      cost_nano: String(8n * PER_SECOND_NANO),
      audio_ms: Math.ceil(AUDIO_SECONDS) * 1000,
      status: 'ok',
    });
    const chat = rows.filter((r) => r.endpoint === 'chat');
    expect(chat).toHaveLength(1);
    await settleAll(app);
    const spent = rows.reduce((sum, r) => sum + BigInt(r.cost_nano), 0n);
    expect(await balanceNanoInDb(app, owner.userId)).toBe(START_NANO - spent);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('the owner’s own transcription model is used when chosen', async () => {
    const { agentId } = await connectedAgent({ transcribeVoice: true, transcriptionModel: 'acme/speech-pro' });
    const [answer] = await driver.sendAndWait(agentId, voiceWithoutTranscript('voice-model.ogg'));
    expect(answer!.message).toBe(`Вы сказали: «${TRANSCRIPT}». Записываю!`);
    expect((transcriptionCalls()[0]!.body as RecordedForm).fields.model).toBe('acme/speech-pro');
  });

  test('transcription off (the default): «Не расслышал…», nothing downloaded, transcribed or asked of the model', async () => {
    const { owner, agentId, modelId } = await connectedAgent();
    const [answer] = await driver.sendAndWait(agentId, voiceWithoutTranscript('voice-off.ogg'));
    expect(answer!.message).toBe(NOT_HEARD);
    expect(vk.voiceDownloads).toEqual([]);
    expect(transcriptionCalls()).toHaveLength(0);
    expect(model.requestsFor(modelId)).toHaveLength(0);
    expect(await ownerRows(owner.userId)).toEqual([]);
  });

  test('transcription on but failing (a model no provider transcribes; a link off VK’s CDN): «Не расслышал…», the owner not charged', async () => {
    const { owner, agentId, modelId } = await connectedAgent({ transcribeVoice: true, transcriptionModel: 'acme/no-speech' });
    const [answer] = await driver.sendAndWait(agentId, voiceWithoutTranscript('voice-fail.ogg'));
    expect(answer!.message).toBe(NOT_HEARD);
    expect(model.requestsFor(modelId)).toHaveLength(0);
    const rows = await ownerRows(owner.userId);
    expect(rows.map((r) => [r.endpoint, r.cost_nano])).toEqual([['audio_transcriptions', '0']]);

    const elsewhere = await connectedAgent({ transcribeVoice: true });
    const foreign = driver.messageNew('', {
      attachments: [{ type: 'audio_message', audio_message: { id: 1, owner_id: CLIENT, duration: 3, link_ogg: 'http://127.0.0.1:9/evil.ogg' } }],
    });
    const [refused] = await driver.sendAndWait(elsewhere.agentId, foreign);
    expect(refused!.message).toBe(NOT_HEARD);
    expect(transcriptionCalls()).toHaveLength(0);
  });
});
