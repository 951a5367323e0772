// How the assistant takes what clients really send in VK (issue 31, point 5), over the callback webhook with a
// fake VK and the scripted model host (which records what the model was sent): typed button labels, voice
// messages with VK's transcript, photos, stickers, answers longer than one VK message, and bursts of
// messages answered once — also across two instances on one database.
import { afterAll, beforeAll, beforeEach, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { lastUserText, startScriptedModelHost, type ScriptedModelHost, type ScriptedRequest } from '../fakes/scripted-model';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { buttonsOf, CLIENT, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';
import { queueSocialMessage, splitMessage } from '../../src/integrations/social/sender';
import { callbackButton, keyboard } from '../../src/integrations/social/keyboards';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const NOT_HEARD = 'Не расслышал, напишите, пожалуйста, текстом.';
const IMAGES_OFF = 'К сожалению, я не могу посмотреть фото. Опишите, пожалуйста, словами, что на нём, — я постараюсь помочь.';
const STICKER = 'Спасибо! 😊 Напишите, чем я могу помочь.';

let vk: FakeVk;
let model: ScriptedModelHost;
let app: TestApp;
let modelCounter = 0;

beforeAll(async () => {
  [vk, model] = await Promise.all([startFakeVk(), startScriptedModelHost()]);
  // Retries soon, so the test of parts sent in order under a retry does not wait for the default 5 s.
  app = await startTestApp({ env: { VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: model.url, OUTBOX_RETRY_BASE_MS: '200', OUTBOX_POLL_INTERVAL_MS: '100' } });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), model?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
});

type AgentType = 'creator' | 'service' | 'ecommerce';

/** An agent with its own model id (so its script and recorded requests are its own), connected to the community. */
async function connectedAgent(target: TestApp, type: AgentType = 'creator', extra: Record<string, unknown> = {}) {
  const owner = await registerUser(target.url);
  const modelId = `acme/patterns-${++modelCounter}`;
  const res = await call(target.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: 'Салон «Лён»', type, model: modelId, systemPrompt: 'Ты — вежливый администратор.', ...extra },
  });
  expect(res.status).toBe(201);
  const agentId = res.body.id as string;
  const saved = await call(target.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(saved.status).toBe(200);
  return { owner, agentId, modelId, body: res.body };
}

const driver = createSocialDriver(
  () => app,
  () => vk,
);
const { messageNew, sendAndWait, processed } = driver;

/** Posts an event, waits for what handling it did and for the reply it sent to reach VK. */
async function outcomeOf(agentId: string, body: ReturnType<typeof messageNew>) {
  const before = vk.sentMessages.filter((m) => m.peerId === CLIENT).length;
  const res = await driver.post(agentId, body);
  expect(res.status).toBe(200);
  const outcome = await processed(agentId, body.event_id as string);
  await waitFor(() => vk.sentMessages.filter((m) => m.peerId === CLIENT).length > before, 5000, 'the reply in VK');
  return outcome;
}

const texts = () => vk.sentMessages.filter((m) => m.peerId === CLIENT).map((m) => m.message);

const voice = (fields: Record<string, unknown>) => ({
  type: 'audio_message',
  audio_message: {
    id: 456239017,
    owner_id: CLIENT,
    duration: 4,
    waveform: [0, 3, 17],
    link_ogg: 'https://psv4.userapi.com/a.ogg',
    link_mp3: 'https://psv4.userapi.com/a.mp3',
    access_key: '2uCU2UR4Iz',
    ...fields,
  },
});

const photo = {
  type: 'photo',
  photo: {
    id: 457239100,
    owner_id: CLIENT,
    album_id: -3,
    date: 1764572400,
    access_key: 'f00d',
    sizes: [
      { type: 's', url: 'https://sun9-1.userapi.com/s.jpg', width: 75, height: 56 },
      { type: 'z', url: 'https://sun9-1.userapi.com/z.jpg', width: 1080, height: 810 },
      { type: 'x', url: 'https://sun9-1.userapi.com/x.jpg', width: 604, height: 453 },
    ],
  },
};

const sticker = { type: 'sticker', sticker: { product_id: 279, sticker_id: 9013, images: [{ url: 'https://vk.com/sticker/1-9013-128', width: 128, height: 128 }] } };

/** The image URLs of the last user message the model was sent. */
function imagesOf(request: ScriptedRequest): string[] {
  const last = [...request.body.messages].reverse().find((m) => m.role === 'user');
  if (!last || !Array.isArray(last.content)) return [];
  return (last.content as { type: string; image_url?: { url: string } }[]).filter((p) => p.type === 'image_url').map((p) => p.image_url!.url);
}

describe('typed button labels', () => {
  test('«Записаться», «Корзина», «Оформить заказ» typed (any case, punctuation, spaces) act as the buttons; no model call', async () => {
    const salon = await connectedAgent(app, 'service');
    // No YCLIENTS connected: the «Записаться» button answers that online booking is not set up.
    expect(await outcomeOf(salon.agentId, messageNew('  записаться!! '))).toBe('booking_unavailable');
    expect(texts().at(-1)).toContain('Онлайн-запись пока не подключена');

    const shop = await connectedAgent(app, 'ecommerce');
    expect(await outcomeOf(shop.agentId, messageNew('КОРЗИНА'))).toBe('cart_empty');
    expect(texts().at(-1)).toBe('Корзина пуста. Загляните в каталог.');
    expect(await outcomeOf(shop.agentId, messageNew('Оформить заказ.'))).toBe('payments_unavailable');
    expect(await outcomeOf(shop.agentId, messageNew('главное меню 👍'))).toBe('menu');
    expect(model.requestsFor(salon.modelId)).toHaveLength(0);
    expect(model.requestsFor(shop.modelId)).toHaveLength(0);

    // A label of another type's menu, or a sentence holding a label, is the model's.
    const creator = await connectedAgent(app, 'creator');
    const [answer] = await sendAndWait(creator.agentId, messageNew('Записаться'));
    expect(answer!.message).toBe('Echo: Записаться');
    await sendAndWait(shop.agentId, messageNew('А корзина у вас где?'));
    expect(model.requestsFor(shop.modelId)).toHaveLength(1);
  });

  test('a label typed while a flow waits for an answer acts as the button, as a press would', async () => {
    const agent = await connectedAgent(app);
    expect(await outcomeOf(agent.agentId, messageNew('позовите оператора'))).toBe('asked_phone');
    // «Меню», which the welcome says to type, and «Помощь» are the menu's buttons, not a phone that is no phone.
    expect(await outcomeOf(agent.agentId, messageNew('Помощь'))).toBe('help');
    expect(await outcomeOf(agent.agentId, messageNew('меню'))).toBe('menu');
    const [row] = await app.sql<{ flow: unknown }>('select flow from dialogues where agent_id = $1', [agent.agentId]);
    expect(row!.flow).toBeNull();
    expect(model.requestsFor(agent.modelId)).toHaveLength(0);
  });

  test('a choice button’s label acts only while its keyboard is on the assistant’s last message', async () => {
    const shop = await connectedAgent(app, 'ecommerce');
    const base = `/api/v1/commerce/${shop.agentId}`;
    const product = await call(app.url, 'POST', `${base}/products`, { token: shop.owner.token, body: { title: 'Платье льняное', priceMinor: 459000 } });
    expect(product.status).toBe(201);
    const [catalog] = await sendAndWait(shop.agentId, messageNew('каталог'));
    expect(buttonsOf(catalog!).map((b) => b.action.label)).toContain('➕ Платье льняное');

    // Typed while the catalog is the last keyboard: the «➕ Платье льняное» press.
    expect(await outcomeOf(shop.agentId, messageNew('платье льняное'))).toBe('cart_add');
    expect(texts().at(-1)).toBe('Добавлено: Платье льняное. Товаров в корзине: 1.');
    // The last message now has «Корзина»/«Каталог» only: the product's name is text for the model again.
    const [answer] = await sendAndWait(shop.agentId, messageNew('Платье льняное'));
    expect(answer!.message).toBe('Echo: Платье льняное');
    expect(model.requestsFor(shop.modelId)).toHaveLength(1);
  });
});

describe('voice, photo, sticker', () => {
  test('a voice message’s transcript is the client’s text: remembered as their turn, sent to the model', async () => {
    const agent = await connectedAgent(app);
    const [answer] = await sendAndWait(agent.agentId, messageNew('', { attachments: [voice({ transcript_state: 'done', transcript: 'Сколько стоит стрижка?' })] }));
    expect(answer!.message).toBe('Echo: Сколько стоит стрижка?');
    expect(lastUserText(model.requestsFor(agent.modelId)[0]!.body)).toBe('Сколько стоит стрижка?');
    const turns = await app.sql<{ role: string; content: string }>(
      `select m.role, m.content from dialogue_messages m join dialogues d on d.id = m.dialogue_id where d.agent_id = $1 order by m.id`,
      [agent.agentId],
    );
    expect(turns[0]).toEqual({ role: 'user', content: 'Сколько стоит стрижка?' });

    // A transcript that is a button's label is that button.
    const salon = await connectedAgent(app, 'service');
    expect(await outcomeOf(salon.agentId, messageNew('', { attachments: [voice({ transcript_state: 'done', transcript: 'Записаться' })] }))).toBe(
      'booking_unavailable',
    );
  });

  test('no transcript (in progress, nothing recognised, none at all) → «Не расслышал…», no model call', async () => {
    const agent = await connectedAgent(app);
    for (const fields of [{ transcript_state: 'in_progress' }, { transcript_state: 'done', is_recognized: 0, locale: '' }, {}]) {
      expect(await outcomeOf(agent.agentId, messageNew('', { attachments: [voice(fields)] }))).toBe('voice_not_heard');
      expect(texts().at(-1)).toBe(NOT_HEARD);
    }
    expect(model.requestsFor(agent.modelId)).toHaveLength(0);
  });

  test('photos with the switch on: the largest size goes to the model as an image part, with the text sent along', async () => {
    const agent = await connectedAgent(app, 'creator', { acceptsImages: true });
    expect(agent.body.acceptsImages).toBe(true);
    const withOrig = {
      type: 'photo',
      photo: { ...photo.photo, id: 457239101, orig_photo: { type: 'base', url: 'https://sun9-1.userapi.com/orig.jpg', width: 2560, height: 1920 } },
    };
    const [answer] = await sendAndWait(agent.agentId, messageNew('Такое платье есть?', { attachments: [photo, withOrig] }));
    expect(answer!.message).toContain('Такое платье есть?');
    const [request] = model.requestsFor(agent.modelId);
    expect(imagesOf(request!)).toEqual(['https://sun9-1.userapi.com/z.jpg', 'https://sun9-1.userapi.com/orig.jpg']);
    expect(lastUserText(request!.body)).toContain('Такое платье есть?');

    // A photo alone is a turn too.
    await sendAndWait(agent.agentId, messageNew('', { attachments: [photo] }));
    expect(imagesOf(model.requestsFor(agent.modelId)[1]!)).toEqual(['https://sun9-1.userapi.com/z.jpg']);
  });

  test('photos with the switch off (the default): a polite answer and no model call; text sent along is still answered', async () => {
    const agent = await connectedAgent(app);
    expect(agent.body.acceptsImages).toBe(false);
    expect(await outcomeOf(agent.agentId, messageNew('', { attachments: [photo] }))).toBe('photo_declined');
    expect(texts().at(-1)).toBe(IMAGES_OFF);
    expect(model.requestsFor(agent.modelId)).toHaveLength(0);

    const both = await sendAndWait(agent.agentId, messageNew('А какие цены?', { attachments: [photo] }), 2);
    expect(both.map((m) => m.message)).toEqual([IMAGES_OFF, 'Echo: [фото] А какие цены?']);
    expect(imagesOf(model.requestsFor(agent.modelId)[0]!)).toEqual([]);

    // The owner turns it on in the agent's settings.
    const patched = await call(app.url, 'PATCH', `/api/agents/${agent.agentId}`, { token: agent.owner.token, body: { acceptsImages: true } });
    expect(patched.status).toBe(200);
    expect(patched.body.acceptsImages).toBe(true);
    await sendAndWait(agent.agentId, messageNew('', { attachments: [photo] }));
    expect(imagesOf(model.requestsFor(agent.modelId)[1]!)).toEqual(['https://sun9-1.userapi.com/z.jpg']);
    const bad = await call(app.url, 'PATCH', `/api/agents/${agent.agentId}`, { token: agent.owner.token, body: { acceptsImages: 'да' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('invalid_request_error');
  });

  test('a sticker gets a short friendly reply, no model call', async () => {
    const agent = await connectedAgent(app);
    expect(await outcomeOf(agent.agentId, messageNew('', { attachments: [sticker] }))).toBe('sticker');
    expect(texts().at(-1)).toBe(STICKER);
    expect(model.requestsFor(agent.modelId)).toHaveLength(0);
  });
});

describe('long answers', () => {
  /** Nine paragraphs of 17 sentences (about 1,050 characters each): three fit in one VK message, four do not. */
  const longAnswer = Array.from({ length: 9 }, (_, p) =>
    Array.from({ length: 17 }, (_, s) => `Абзац ${p + 1}, предложение ${s + 1}: мастер подробно расскажет о процедуре.`).join(' '),
  ).join('\n\n');

  test('a 9,000-character answer goes as 3 messages cut at paragraph ends, in order, even when the first send is retried', async () => {
    expect(longAnswer.length).toBeGreaterThan(9000);
    const agent = await connectedAgent(app);
    model.script(agent.modelId, () => ({ text: longAnswer }));
    // VK fails the first part once: it is retried, and the later parts wait for it.
    vk.failNextHttp('messages.send', 500, 1);
    const parts = await sendAndWait(agent.agentId, messageNew('Расскажите подробно'), 3);
    await Bun.sleep(300);
    const sent = vk.sentMessages.filter((m) => m.peerId === CLIENT);
    expect(sent).toHaveLength(3);
    expect(parts.map((m) => m.message).join('\n\n')).toBe(longAnswer);
    for (const part of parts) {
      expect(part.message.length).toBeLessThanOrEqual(4096);
      expect(part.message.endsWith('процедуре.')).toBe(true);
    }
    expect(new Set(parts.map((m) => m.randomId)).size).toBe(3);
    expect(parts[0]!.message.startsWith('Абзац 1,')).toBe(true);
  });

  test('a long message with a keyboard carries it on its last part only', async () => {
    const agent = await connectedAgent(app);
    const menu = keyboard([[callbackButton('Главное меню', { action: 'menu' })]], { inline: true });
    await queueSocialMessage(app.instance.services.database.db, { agentId: agent.agentId, peerId: CLIENT, text: longAnswer, keyboard: menu });
    await waitFor(() => vk.sentMessages.filter((m) => m.peerId === CLIENT).length >= 3, 5000, 'three parts');
    const sent = vk.sentMessages.filter((m) => m.peerId === CLIENT);
    expect(sent.map((m) => m.keyboard === null)).toEqual([true, true, false]);
  });

  test('cuts fall back to sentence ends, then word ends, never inside a word', () => {
    const sentences = Array.from({ length: 300 }, (_, i) => `Предложение номер ${i + 1} закончено.`).join(' ');
    const bySentence = splitMessage(sentences, 1000);
    expect(bySentence.length).toBeGreaterThan(1);
    for (const part of bySentence) {
      expect(part.length).toBeLessThanOrEqual(1000);
      expect(part.endsWith('закончено.')).toBe(true);
    }
    expect(bySentence.join(' ')).toBe(sentences);

    const words = Array.from({ length: 400 }, (_, i) => `слово${i}`).join(' ');
    const byWord = splitMessage(words, 500);
    for (const part of byWord) expect(part.length).toBeLessThanOrEqual(500);
    expect(byWord.join(' ')).toBe(words);
    expect(byWord.flatMap((p) => p.split(' '))).toEqual(words.split(' '));

    expect(splitMessage('Коротко.', 500)).toEqual(['Коротко.']);
  });
});

describe('bursts (ASSISTANT_DEBOUNCE_MS=600)', () => {
  let burstApp: TestApp;
  let other: TestApp | null = null;
  // The inbox sweep (5 × the outbox poll) is the bursts' backstop: every 500 ms here.
  const env = () => ({ VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: model.url, ASSISTANT_DEBOUNCE_MS: '600', OUTBOX_POLL_INTERVAL_MS: '100' });

  beforeAll(async () => {
    burstApp = await startTestApp({ env: env() });
    // A second instance on the same database: only PostgreSQL is shared between processes' connections.
    if (onPostgres) other = await startTestApp({ database: burstApp.database, env: env() });
  });
  afterAll(async () => {
    await other?.stop();
    await burstApp?.close();
  });

  const postTo = (target: TestApp, agentId: string, body: unknown) =>
    fetch(`${target.url}/api/v1/social/webhook/${agentId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  async function burst(targets: TestApp[]) {
    const agent = await connectedAgent(burstApp);
    const lines = ['Добрый день, подскажите', 'сколько стоит маникюр', 'и есть ли время в субботу?'];
    for (const [i, line] of lines.entries()) {
      const res = await postTo(targets[i % targets.length]!, agent.agentId, messageNew(line));
      expect(await res.text()).toBe('ok');
      await Bun.sleep(100);
    }
    await waitFor(() => vk.sentMessages.some((m) => m.peerId === CLIENT), 5000, 'the answer');
    // Longer than the debounce again: a second answer would have come by now.
    await Bun.sleep(1200);
    const requests = model.requestsFor(agent.modelId);
    expect(requests).toHaveLength(1);
    const userTurns = requests[0]!.body.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(userTurns).toEqual(lines);
    expect(vk.sentMessages.filter((m) => m.peerId === CLIENT).map((m) => m.message)).toEqual([`Echo: ${lines[2]}`]);
    const turns = await burstApp.sql<{ role: string }>(
      `select m.role from dialogue_messages m join dialogues d on d.id = m.dialogue_id where d.agent_id = $1 order by m.id`,
      [agent.agentId],
    );
    expect(turns.map((t) => t.role)).toEqual(['user', 'user', 'user', 'assistant']);
  }

  test('three messages 100 ms apart: one model call holding all three, one answer', async () => {
    await burst([burstApp]);
  });

  test.skipIf(!onPostgres)('the same when the messages reach two instances on one database', async () => {
    await burst([burstApp, other!, burstApp]);
  });

  test('a photo and then its question: one turn, the photo on the last user message', async () => {
    const agent = await connectedAgent(burstApp, 'creator', { acceptsImages: true });
    await postTo(burstApp, agent.agentId, messageNew('', { attachments: [photo] }));
    await Bun.sleep(100);
    await postTo(burstApp, agent.agentId, messageNew('Такое есть в наличии?'));
    await waitFor(() => vk.sentMessages.some((m) => m.peerId === CLIENT), 5000, 'the answer');
    await Bun.sleep(900);
    const requests = model.requestsFor(agent.modelId);
    expect(requests).toHaveLength(1);
    expect(imagesOf(requests[0]!)).toEqual(['https://sun9-1.userapi.com/z.jpg']);
    expect(lastUserText(requests[0]!.body)).toBe('Такое есть в наличии?');
    expect(vk.sentMessages.filter((m) => m.peerId === CLIENT)).toHaveLength(1);
  });

  test('an answer owed by an instance that stopped (its timer gone, its claim expired) is given by the sweep', async () => {
    const agent = await connectedAgent(burstApp);
    const [dialogue] = await burstApp.sql<{ id: string }>(`insert into dialogues (agent_id, channel, peer_id) values ($1, 'social', $2) returning id`, [
      agent.agentId,
      String(CLIENT),
    ]);
    await burstApp.sql(`insert into dialogue_messages (dialogue_id, role, content) values ($1, 'user', 'Вы работаете в воскресенье?')`, [dialogue!.id]);
    // As a stopped instance leaves it: the due time passed, and a claim whose lease ran out mid-turn.
    await burstApp.sql(
      `update dialogues set answer_due_at = now() - interval '1 second', answer_locked_until = now() - interval '1 second', answer_request_id = 'vk-lost' where id = $1`,
      [dialogue!.id],
    );
    await waitFor(() => vk.sentMessages.some((m) => m.peerId === CLIENT), 5000, 'the owed answer');
    expect(vk.sentMessages.filter((m) => m.peerId === CLIENT).map((m) => m.message)).toEqual(['Echo: Вы работаете в воскресенье?']);
    expect(model.requestsFor(agent.modelId)).toHaveLength(1);
    const [row] = await burstApp.sql<{ answer_due_at: unknown; answer_locked_until: unknown }>(
      'select answer_due_at, answer_locked_until from dialogues where id = $1',
      [dialogue!.id],
    );
    expect(row).toEqual({ answer_due_at: null, answer_locked_until: null });
  });

  test('buttons and triggers act at once; the model’s messages wait for the burst to end', async () => {
    const agent = await connectedAgent(burstApp, 'ecommerce');
    const question = messageNew('Есть доставка?');
    const res = await postTo(burstApp, agent.agentId, question);
    expect(await res.text()).toBe('ok');
    const menu = messageNew('Меню');
    await postTo(burstApp, agent.agentId, menu);
    const cart = messageNew('корзина');
    await postTo(burstApp, agent.agentId, cart);
    const outcome = (body: { event_id: string }) =>
      waitFor(async () => {
        const [row] = await burstApp.sql<{ outcome: string | null }>(
          'select outcome from social_events where agent_id = $1 and event_id = $2 and processed_at is not null',
          [agent.agentId, body.event_id],
        );
        return row?.outcome ?? null;
      });
    expect(await outcome(question as { event_id: string })).toBe('answer_deferred');
    expect(await outcome(menu as { event_id: string })).toBe('menu');
    expect(await outcome(cart as { event_id: string })).toBe('cart_empty');
    await waitFor(() => vk.sentMessages.filter((m) => m.peerId === CLIENT).length >= 3, 5000, 'the deferred answer');
    const sent = vk.sentMessages.filter((m) => m.peerId === CLIENT).map((m) => m.message);
    expect(sent.slice(0, 2)).toEqual(['Выберите, что вас интересует:', 'Корзина пуста. Загляните в каталог.']);
    expect(sent[2]).toStartWith('Echo: ');
    const requests = model.requestsFor(agent.modelId);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.body.messages.filter((m) => m.role === 'user').map((m) => m.content)).toContain('Есть доставка?');
  });
});
