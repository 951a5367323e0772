// An agent's knowledge base over HTTP: CRUD with its limits, ownership on every route, CSV and text
// import (all or nothing), Russian full-text search with stemming; and the search_knowledge tool and the
// prompt block the assistant's model turn takes from it, run against the real database.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { dialogues } from '../../src/dialogues/tables';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function agentOf(type = 'service') {
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Салон «Лён»', type, model: 'acme/chat' } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  return { owner, agentId, base: `/api/v1/agents/${agentId}/knowledge` };
}

async function add(s: { owner: { token: string }; base: string }, title: string, content: string) {
  const res = await call(app.url, 'POST', s.base, { token: s.owner.token, body: { title, content } });
  expect(res.status).toBe(201);
  return res.body as { id: string; title: string; content: string };
}

describe('knowledge API', () => {
  test('create, read, list in pages, change, delete; bad input is a 400 that names the field', async () => {
    const s = await agentOf();
    const created = await call(app.url, 'POST', s.base, { token: s.owner.token, body: { title: '  Часы работы ', content: 'Ежедневно с 10:00 до 21:00.' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      title: 'Часы работы',
      content: 'Ежедневно с 10:00 до 21:00.',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.body.id as string;
    expect((await call(app.url, 'GET', `${s.base}/${id}`, { token: s.owner.token })).body.title).toBe('Часы работы');

    const patched = await call(app.url, 'PATCH', `${s.base}/${id}`, { token: s.owner.token, body: { content: 'Ежедневно с 9:00 до 22:00.' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ title: 'Часы работы', content: 'Ежедневно с 9:00 до 22:00.' });

    for (let i = 1; i <= 4; i++) await add(s, `Вопрос ${i}`, `Ответ ${i}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { status: number; body: { entries: { id: string }[]; nextCursor: string | null } } = await call(
        app.url,
        'GET',
        `${s.base}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { token: s.owner.token },
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.entries.map((e) => e.id));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);
    expect(seen[0]).toBe(id);

    expect((await call(app.url, 'DELETE', `${s.base}/${id}`, { token: s.owner.token })).status).toBe(200);
    const gone = await call(app.url, 'GET', `${s.base}/${id}`, { token: s.owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body.error.message).toBe('Запись базы знаний не найдена');
    expect((await call(app.url, 'PATCH', `${s.base}/not-a-uuid`, { token: s.owner.token, body: { title: 'x' } })).status).toBe(404);

    for (const [body, message] of [
      [{ title: '', content: 'x' }, 'Заголовок: обязательное поле'],
      [{ title: 'x' }, 'Текст записи: обязательное поле'],
      [{ title: 'x'.repeat(201), content: 'x' }, 'Заголовок: не длиннее 200 символов'],
      [{ title: 'x', content: 'я'.repeat(10_001) }, 'Текст записи: не длиннее 10 000 символов'],
      [{ title: 'x', content: 'нуль\u0000внутри' }, 'Текст записи: текст содержит недопустимый символ'],
    ] as const) {
      const res = await call(app.url, 'POST', s.base, { token: s.owner.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toContain(message);
    }
  });

  test('only the owner: another user gets 403 on every route, an unknown agent 404, no token 401', async () => {
    const s = await agentOf('creator');
    const entry = await add(s, 'Курс', 'Курс по акварели стартует 1 декабря.');
    const stranger = await registerUser(app.url);
    const routes: [string, string, unknown?][] = [
      ['GET', s.base],
      ['GET', `${s.base}?query=курс`],
      ['POST', s.base, { title: 'Чужая', content: 'запись' }],
      ['GET', `${s.base}/${entry.id}`],
      ['PATCH', `${s.base}/${entry.id}`, { title: 'Взлом' }],
      ['DELETE', `${s.base}/${entry.id}`],
      ['POST', `${s.base}/import`, { text: 'Чужая\nзапись' }],
      ['GET', `/api/v1/agents/${s.agentId}/tools`],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(app.url, method, path, { token: stranger.token, body });
      expect([method, path, res.status]).toEqual([method, path, 403]);
      expect(res.body.error.type).toBe('forbidden');
      expect((await call(app.url, method, path, { body })).status).toBe(401);
    }
    const unknown = await call(app.url, 'GET', `/api/v1/agents/00000000-0000-4000-8000-000000000000/knowledge`, { token: s.owner.token });
    expect(unknown.status).toBe(404);
    // Nothing of the owner's changed.
    const read = await call(app.url, 'GET', `${s.base}/${entry.id}`, { token: s.owner.token });
    expect(read.body.title).toBe('Курс');
    expect((await call(app.url, 'GET', s.base, { token: s.owner.token })).body.entries).toHaveLength(1);
  });

  test('import from CSV (header, quotes, semicolons) and from text in sections: all entries or none', async () => {
    const s = await agentOf();
    const csv = '\uFEFFtitle;content\n"Доставка";"По Москве — 300 ₽; бесплатно от 5000 ₽"\nВозврат;"В течение 14 дней,\nс чеком"\n';
    const fromCsv = await call(app.url, 'POST', `${s.base}/import`, { token: s.owner.token, body: { csv } });
    expect(fromCsv.status).toBe(200);
    expect(fromCsv.body).toEqual({ ok: true, imported: 2, errors: [] });

    const text = 'Парковка\nБесплатная парковка во дворе.\n\n\nОплата картой и наличными.\n\n# Скидки\nСтудентам 10 %.\nПо будням до 12:00 — 15 %.\n';
    const fromText = await call(app.url, 'POST', `${s.base}/import`, { token: s.owner.token, body: { text } });
    expect(fromText.body).toEqual({ ok: true, imported: 3, errors: [] });
    const entries = (await call(app.url, 'GET', `${s.base}?limit=100`, { token: s.owner.token })).body.entries as { title: string; content: string }[];
    expect(entries.map((e) => [e.title, e.content])).toEqual([
      ['Доставка', 'По Москве — 300 ₽; бесплатно от 5000 ₽'],
      ['Возврат', 'В течение 14 дней,\nс чеком'],
      ['Парковка', 'Бесплатная парковка во дворе.'],
      ['Оплата картой и наличными.', 'Оплата картой и наличными.'],
      ['Скидки', 'Студентам 10 %.\nПо будням до 12:00 — 15 %.'],
    ]);

    // One bad row: nothing is written, every bad row is named.
    const bad = await call(app.url, 'POST', `${s.base}/import`, {
      token: s.owner.token,
      body: { csv: 'заголовок,текст\nХорошая,запись\n,без заголовка\nЕщё хорошая,да\nПустая,\n' },
    });
    expect(bad.status).toBe(200);
    expect(bad.body.ok).toBe(false);
    expect(bad.body.imported).toBe(0);
    expect(bad.body.errors.map((e: { row: number }) => e.row)).toEqual([2, 4]);
    expect(bad.body.errors[0].message).toMatch(/обязательное поле/);
    expect((await call(app.url, 'GET', `${s.base}?limit=100`, { token: s.owner.token })).body.entries).toHaveLength(5);

    for (const body of [{ csv: 'a,b\n1,2\n' }, { csv: 'x', text: 'y' }, {}, { text: '\n\n  \n' }, { text: 'нуль\u0000' }]) {
      const res = await call(app.url, 'POST', `${s.base}/import`, { token: s.owner.token, body });
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body.error.message).toMatch(/[а-я]/);
    }
    const tooMany = Array.from({ length: 501 }, (_, i) => `Запись ${i}\nТекст ${i}`).join('\n\n');
    const big = await call(app.url, 'POST', `${s.base}/import`, { token: s.owner.token, body: { text: tooMany } });
    expect(big.status).toBe(400);
    expect(big.body.error.message).toContain('500');
  });

  test('search finds other forms of a word (Russian stemming), best match first, and only this agent’s entries', async () => {
    const s = await agentOf();
    await add(s, 'Стрижка', 'Женская стрижка — 2500 ₽, мужская — 1500 ₽. Длительность около часа.');
    await add(s, 'Окрашивание', 'Окрашивание волос от 4000 ₽. Перед окрашиванием нужна консультация мастера.');
    await add(s, 'Часы работы', 'Мы работаем ежедневно с 10:00 до 21:00, стрижки детям — по выходным.');
    const other = await agentOf();
    await add(other, 'Стрижка', 'Чужой салон: 100 ₽.');

    const search = async (query: string) =>
      (await call(app.url, 'GET', `${s.base}?query=${encodeURIComponent(query)}`, { token: s.owner.token })).body.entries as {
        title: string;
        content: string;
        rank: number;
      }[];
    const haircut = await search('стрижки');
    expect(haircut.map((e) => e.title)).toEqual(['Стрижка', 'Часы работы']);
    expect(haircut[0]!.rank).toBeGreaterThan(haircut[1]!.rank);
    expect(haircut.some((e) => e.content.includes('Чужой'))).toBe(false);
    // A question whose other words no entry holds still finds the entry.
    expect((await search('Сколько стоит окрашивание волос?'))[0]!.title).toBe('Окрашивание');
    expect(await search('маникюр')).toEqual([]);
    const empty = await call(app.url, 'GET', `${s.base}?query=`, { token: s.owner.token });
    expect(empty.status).toBe(400);
  });
});

describe('search_knowledge tool and the prompt block', () => {
  test('the tool is offered once there are entries, answers with the best entries, and the prompt gets only a good match', async () => {
    const s = await agentOf('creator');
    const services = app.instance.services;
    const agent = (await services.agents.find(s.agentId))!;

    const before = await services.knowledgeTools.provider.toolsFor(agent);
    expect(before.tools).toEqual([]);
    expect(before.missing).toEqual([{ name: 'search_knowledge', reason: 'Добавьте записи в базу знаний' }]);

    await add(s, 'Курс акварели', 'Онлайн-курс «Акварель с нуля»: 8 уроков, стоимость 6900 ₽, старт 1 декабря.');
    await add(s, 'Сотрудничество', 'Реклама и коллаборации — через менеджера, пишите с пометкой «сотрудничество».');
    const { tools, missing } = await services.knowledgeTools.provider.toolsFor(agent);
    expect(missing).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['search_knowledge']);
    const tool = tools[0]!;
    expect(tool.parameters.required).toEqual(['query']);

    const [dialogue] = await services.db.insert(dialogues).values({ agentId: agent.id, channel: 'vk', peerId: '777' }).returning();
    const ctx = { agent, dialogue: dialogue!, requestId: 'req-knowledge', clientText: 'Сколько стоят курсы?' };
    const found = await tool.run({ query: 'курсы акварелью' }, ctx);
    expect((found.result as { entries: { title: string }[] }).entries[0]!.title).toBe('Курс акварели');
    expect(found.summary).toBe('база знаний «курсы акварелью»: найдено 1');
    const none = await tool.run({ query: 'доставка' }, ctx);
    expect(none.result).toMatchObject({ entries: [], note: expect.stringContaining('Не выдумывай') });
    const bad = await tool.run({ query: 42 }, ctx);
    expect(bad.result).toMatchObject({ ok: false });

    // A question's filler words do not dilute the one that matters.
    await add(s, 'Стрижка', 'Женская стрижка — 2500 ₽.');
    expect(await services.knowledgeTools.knowledgeForPrompt(agent.id, 'Сколько стоит стрижка?')).toContain('Женская стрижка — 2500 ₽.');
    const block = await services.knowledgeTools.knowledgeForPrompt(agent.id, 'Сколько стоит курс акварели?');
    expect(block).toContain('### Курс акварели');
    expect(block).toContain('6900 ₽');
    expect(block).not.toContain('Сотрудничество');
    // A word only in passing in a long body is not enough to go into the prompt unasked.
    expect(await services.knowledgeTools.knowledgeForPrompt(agent.id, 'Привет! Как дела?')).toBeNull();
    expect(await services.knowledgeTools.knowledgeForPrompt(agent.id, 'уроки')).toBeNull();
  });
});
