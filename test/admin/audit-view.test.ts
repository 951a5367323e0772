// The audit's Russian view as a pure function: the rows the HTTP test does not make (an import, the
// operator's requisites, sessions ended, a reset link, a route's cost price and a provider taken off it).
import { describe, expect, test } from 'bun:test';
import { describeAudit, type AuditNames, type AuditRowFacts } from '../../src/admin/audit-view';

const names: AuditNames = { providers: new Map([['p-main', 'Основной']]), routes: new Set(['acme/*']), prices: new Set() };
const row = (facts: Partial<AuditRowFacts> & Pick<AuditRowFacts, 'action' | 'targetType'>): AuditRowFacts => ({
  targetId: null,
  targetEmail: null,
  before: null,
  after: null,
  ...facts,
});
const lines = (facts: AuditRowFacts) => describeAudit(facts, names, 'RUB').changes.map((c) => c.text);

describe('the audit row in Russian', () => {
  test('a price import: the table as a whole, the multiplier and the patterns', () => {
    const view = describeAudit(
      row({
        action: 'price.import',
        targetType: 'price',
        before: { prices: [] },
        after: { multiplier: '1.5', prices: [{ pattern: 'acme/a', promptPerMillion: '1', completionPerMillion: '2' }, { pattern: 'acme/b' }] },
      }),
      names,
      'RUB',
    );
    expect(view).toMatchObject({ actionText: 'Импорт цен', targetText: 'Таблица цен', targetExists: true });
    expect(view.changes.map((c) => c.text)).toEqual(['цены: нет → 2: acme/a, acme/b', 'множитель: 1.5']);
  });

  test('the operator’s requisites, sessions ended, a reset link: named fields, no internal counters', () => {
    const requisites = describeAudit(
      row({ action: 'requisites.update', targetType: 'requisites', before: { inn: '7700000000', kpp: null }, after: { inn: '7711111111', kpp: '770101001' } }),
      names,
      'RUB',
    );
    expect(requisites).toMatchObject({ actionText: 'Реквизиты оператора изменены', targetText: 'Реквизиты оператора' });
    expect(requisites.changes.map((c) => c.text)).toEqual(['ИНН: 7700000000 → 7711111111', 'КПП: — → 770101001']);

    const ended = describeAudit(
      row({
        action: 'user.sessions_ended',
        targetType: 'user',
        targetId: 'u1',
        targetEmail: 'anna@example.com',
        before: { sessionsGeneration: 1 },
        after: { sessionsGeneration: 2 },
      }),
      names,
      'RUB',
    );
    expect(ended).toMatchObject({ actionText: 'Завершены все сеансы', targetText: 'Пользователь anna@example.com', targetExists: true, changes: [] });

    const gone = describeAudit(row({ action: 'user.password_reset_sent', targetType: 'user', targetId: 'u2', after: { email: 'old@example.com' } }), names, 'RUB');
    expect(gone).toMatchObject({ actionText: 'Отправлена ссылка для сброса пароля', targetText: 'Пользователь u2 (удалён)', targetExists: false });
    expect(gone.changes.map((c) => c.text)).toEqual(['e-mail: old@example.com']);
  });

  test('a route: a cost price set, a provider taken off, a gone provider by its id', () => {
    const before = {
      targets: [
        { providerId: 'p-main', priority: 0, weight: 1 },
        { providerId: 'p-gone', priority: 1, weight: 1 },
      ],
    };
    const after = {
      targets: [{ providerId: 'p-main', priority: 0, weight: 1, costPrice: { promptNanoPerMillion: '500000000', completionNanoPerMillion: '1500000000' } }],
    };
    expect(lines(row({ action: 'route.upsert', targetType: 'route', targetId: 'acme/*', before, after }))).toEqual([
      'провайдер «Основной», цена провайдера: не указана → запрос 0,50\u00a0₽, ответ 1,50\u00a0₽ за 1 млн токенов',
      'провайдер p-gone (удалён): приоритет 1, вес 1 → удалено',
    ]);
    const view = describeAudit(row({ action: 'route.delete', targetType: 'route', targetId: 'acme/old', before, after: null }), names, 'RUB');
    expect(view).toMatchObject({ actionText: 'Маршрут удалён', targetText: 'Маршрут acme/old (удалён)', targetExists: false });
  });

  test('a sum keeps every digit that is not zero; a negative one keeps its sign', () => {
    expect(lines(row({ action: 'user.credit', targetType: 'user', targetId: 'u1', targetEmail: 'a@b.c', after: { amount: '-0.000125' } }))).toEqual([
      'сумма: -0,000125\u00a0₽',
    ]);
  });
});
