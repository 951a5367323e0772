// The audit in Russian (issue 41, point 7): each row carries its action's Russian name, the record by its
// name while it exists (a provider's name, an account's e-mail, a route's pattern; «(удалён)» and the id
// kept in targetId once it is gone) and its changes as lines («вес: 1 → 2», «лимит расходов: … → 200,00 ₽»),
// beside the raw fields machines read.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { AUDIT_ACTIONS } from '../../src/admin/audit-actions';
import { auditActionTexts } from '../../src/admin/texts';

setDefaultTimeout(30_000);

const ADMIN_EMAIL = uniqueEmail('audit-ru');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let app: TestApp;
let admin: { token: string; userId: string; email: string };

beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAIL } });
  admin = await registerAdmin(app, ADMIN_EMAIL);
});
afterAll(async () => {
  await app?.close();
});

const adminCall = (method: string, path: string, body?: unknown) => call(app.url, method, path, { token: admin.token, body });

interface Change {
  field: string;
  label: string;
  before: string | null;
  after: string | null;
  text: string;
}
interface Row {
  action: string;
  actionText: string;
  targetId: string | null;
  targetText: string;
  targetExists: boolean;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  changes: Change[];
}

async function rows(query: string): Promise<Row[]> {
  const res = await adminCall('GET', `/api/admin/audit?limit=100&${query}`);
  expect(res.status).toBe(200);
  return res.body.data as Row[];
}
const texts = (row: Row) => row.changes.map((c) => c.text);

describe('the audit in Russian', () => {
  test('every recorded action has a Russian name', () => {
    for (const action of AUDIT_ACTIONS) expect(auditActionTexts[action]).toMatch(/^[А-ЯЁ][а-яё ]+/);
  });

  test('a provider and its route: named, their changes as lines, «удалён» with the id kept once gone', async () => {
    const created = await adminCall('POST', '/api/admin/providers', { name: 'Запасной', baseUrl: 'https://api.example.com/v1', timeoutMs: 5000 });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const pattern = `acme/audit-${Date.now()}`;
    for (const weight of [1, 2]) {
      const put = await adminCall('PUT', '/api/admin/routes', { pattern, targets: [{ providerId: id, weight }] });
      expect(put.status).toBe(200);
    }

    const [create] = await rows(`targetId=${id}&action=provider.create`);
    expect(create).toMatchObject({
      action: 'provider.create',
      actionText: 'Провайдер добавлен',
      targetText: 'Провайдер «Запасной»',
      targetExists: true,
      targetId: id,
    });
    expect(create!.after).toMatchObject({ name: 'Запасной', timeoutMs: 5000 });
    expect(texts(create!)).toEqual(
      expect.arrayContaining(['название: Запасной', 'адрес: https://api.example.com/v1', 'ключ доступа задан: нет', 'включён: да', 'время ожидания ответа: 5 с']),
    );

    const [changed, added] = await rows(`targetId=${encodeURIComponent(pattern)}`);
    expect(changed).toMatchObject({ action: 'route.upsert', actionText: 'Маршрут изменён', targetText: `Маршрут ${pattern}`, targetExists: true });
    expect(texts(changed!)).toEqual(['провайдер «Запасной», вес: 1 → 2']);
    expect(changed!.changes[0]).toMatchObject({ field: 'targets', before: '1', after: '2' });
    expect(texts(added!)).toEqual(['провайдер «Запасной»: приоритет 0, вес 1']);
    // The provider's id is in the raw fields for machines, never in the Russian ones.
    expect(JSON.stringify(changed!.after)).toContain(id);
    expect(JSON.stringify([changed!.changes, changed!.targetText, create!.targetText])).not.toContain(id);

    expect((await adminCall('PATCH', `/api/admin/providers/${id}`, { enabled: false, apiKey: 'sk-audit-key-0001' })).status).toBe(200);
    const [updated] = await rows(`targetId=${id}&action=provider.update`);
    expect(updated).toMatchObject({ actionText: 'Провайдер изменён', targetText: 'Провайдер «Запасной»' });
    expect(texts(updated!)).toEqual(expect.arrayContaining(['включён: да → нет', 'ключ доступа задан: нет → да', 'ключ доступа заменён: да']));
    expect(JSON.stringify(updated)).not.toContain('sk-audit-key-0001');

    expect((await adminCall('DELETE', `/api/admin/routes?pattern=${encodeURIComponent(pattern)}`)).status).toBe(200);
    expect((await adminCall('DELETE', `/api/admin/providers/${id}`)).status).toBe(200);

    const [routeDeleted, routeChanged] = await rows(`targetId=${encodeURIComponent(pattern)}`);
    expect(routeDeleted).toMatchObject({
      action: 'route.delete',
      actionText: 'Маршрут удалён',
      targetText: `Маршрут ${pattern} (удалён)`,
      targetExists: false,
      targetId: pattern,
    });
    // The provider is gone too: named by its id, marked as deleted.
    expect(texts(routeChanged!)).toEqual([`провайдер ${id} (удалён), вес: 1 → 2`]);
    const [providerDeleted] = await rows(`targetId=${id}&action=provider.delete`);
    expect(providerDeleted).toMatchObject({ actionText: 'Провайдер удалён', targetText: 'Провайдер «Запасной» (удалён)', targetExists: false, targetId: id });
    expect(texts(providerDeleted!)).toContain('название: Запасной → удалено');
  });

  test('an account by e-mail; money, periods and yes/no in words; the key by its name, not its id', async () => {
    const user = await registerUser(app.url, uniqueEmail('audit-ru-user'));
    const key = await createApiKey(app.url, user.token, 'Сайт');
    expect((await adminCall('POST', `/api/admin/users/${user.userId}/credit`, { amount: 150, reason: 'Компенсация', reference: `ru-${user.userId}` })).status).toBe(
      200,
    );
    expect((await adminCall('PUT', `/api/admin/users/${user.userId}/keys/${key.id}/budget`, { spendLimit: 200, limitReset: 'day' })).status).toBe(200);
    expect((await adminCall('POST', `/api/admin/users/${user.userId}/block`)).status).toBe(200);

    const [block, limit, credit] = await rows(`targetId=${user.userId}`);
    expect(block).toMatchObject({ action: 'user.block', actionText: 'Блокировка', targetText: `Пользователь ${user.email}`, targetExists: true });
    expect(texts(block!)).toContain('заблокирован: нет → да');
    expect(texts(block!).find((t) => t.startsWith('заблокирован с:'))).toMatch(/^заблокирован с: — → \d\d\.\d\d\.\d{4}, \d\d:\d\d по Москве$/);

    expect(limit).toMatchObject({ action: 'key.limit', actionText: 'Лимит расходов ключа пользователя' });
    // jsonb keeps its own key order: the lines are compared as a set.
    expect(texts(limit!)).toHaveLength(4);
    expect(texts(limit!)).toEqual(
      expect.arrayContaining([
        'ключ: Сайт',
        expect.stringMatching(/^начало ключа: /),
        'лимит расходов: без лимита → 200,00\u00a0₽',
        'период лимита: без сброса → в сутки',
      ]),
    );
    expect(JSON.stringify(limit!.changes)).not.toMatch(UUID);

    expect(credit).toMatchObject({ action: 'user.credit', actionText: 'Начисление или списание' });
    expect(texts(credit!)).toEqual(expect.arrayContaining(['сумма: 150,00\u00a0₽', 'причина: Компенсация']));
    expect(texts(credit!).find((t) => t.startsWith('баланс:'))).toMatch(/^баланс: [\d\u00a0]+,\d\d\u00a0₽ → [\d\u00a0]+,\d\d\u00a0₽$/);
  });

  test('a price: its pattern while it exists, «(удалён)» after', async () => {
    const pattern = `acme/price-audit-${Date.now()}`;
    expect((await adminCall('PUT', '/api/admin/prices', { pattern, promptPerMillion: 1, completionPerMillion: 2 })).status).toBe(200);
    const [set] = await rows(`targetId=${encodeURIComponent(pattern)}`);
    expect(set).toMatchObject({ actionText: 'Цена задана', targetText: `Цена ${pattern}`, targetExists: true });
    expect(texts(set!)).toEqual(
      expect.arrayContaining([`шаблон: ${pattern}`, 'запрос за 1M: 1,00\u00a0₽ за 1 млн токенов', 'ответ за 1M: 2,00\u00a0₽ за 1 млн токенов']),
    );
    expect((await adminCall('DELETE', `/api/admin/prices?pattern=${encodeURIComponent(pattern)}`)).status).toBe(200);
    const [removed, before] = await rows(`targetId=${encodeURIComponent(pattern)}`);
    expect(removed).toMatchObject({ actionText: 'Цена удалена', targetText: `Цена ${pattern} (удалён)`, targetExists: false });
    expect(before!.targetExists).toBe(false);
  });
});
