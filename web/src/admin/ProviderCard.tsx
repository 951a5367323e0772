// One provider in «Провайдеры» as a card that keeps its shape at any width (issue 41 point 4): the name and
// the address each on one line, cut with «…» and whole in their tooltip; the state as a short pill that
// never wraps; the last hour's attempts with the provider's own faults and the clients' errors apart, its
// success rate and answer times (p50, p95); its balance where one is read; its last probes and
// «Проверить сейчас» (issue 43 point 4); the actions in a «⋯» menu, so no button is ever cut at the card's edge.
import type { Outputs } from '../app/api';
import { formatClock, formatDateTime, formatExact, formatInt } from '../shared/format';
import { Button } from '../shared/ui';
import { ActionsMenu, type MenuAction } from './ActionsMenu';

export type Provider = Outputs['admin']['listProviders']['data'][number];

export const DEFAULT_PROVIDER_ID = 'default';

/** The provider's health in words, as the operator reads it. */
export function healthText(health: Provider['health']): string {
  if (health.state === 'cooling_down') return health.cooldownUntil ? `пауза после сбоев до ${formatClock(health.cooldownUntil)}` : 'пауза после сбоев';
  if (health.state === 'disabled') return 'отключён: ключ отклонён';
  return 'работает';
}

/** The pill: the state in a word or two. */
function statePill(health: Provider['health']): string {
  if (health.state === 'cooling_down') return health.cooldownUntil ? `пауза до ${formatClock(health.cooldownUntil)}` : 'пауза';
  if (health.state === 'disabled') return 'отключён';
  return 'работает';
}

const seconds = (ms: number) => `${formatInt(ms / 1000)} с`;
const millis = (ms: number | null) => (ms === null ? '—' : `${formatInt(ms)} мс`);
const percent = (share: number | null) => (share === null ? '—' : `${formatExact(Math.round(share * 1000) / 10)} %`);

type Probe = Provider['probes'][number];

/** One probe in a line: when, the verdict, the status and the time it took. */
function probeLine(probe: Probe): string {
  const verdict = probe.ok ? 'отвечает' : 'не отвечает';
  const status = probe.status === null ? 'нет ответа' : String(probe.status);
  return `${formatClock(probe.at)} · ${verdict} · ${status} · ${formatInt(probe.latencyMs)} мс${probe.trigger === 'operator' ? ' · вручную' : ''}`;
}

function BalanceFacts({ balance }: { balance: NonNullable<Provider['balance']> }) {
  const amount = balance.amount === null ? '—' : formatExact(balance.amount);
  return (
    <div data-testid="provider-balance" data-below={balance.below}>
      <dt>Баланс у провайдера</dt>
      <dd className="cut" title={balance.error ? `Не прочитан: ${balance.error}` : balance.url}>
        <span className={balance.below ? 'balance-low' : undefined}>{amount}</span>
        {balance.threshold === null ? null : <span className="muted"> (порог {formatExact(balance.threshold)})</span>}
        {balance.error ? <span className="muted"> · не прочитан</span> : null}
      </dd>
    </div>
  );
}

export interface ProviderCardActions {
  edit(row: Provider): void;
  toggle(row: Provider): void;
  restore(row: Provider): void;
  remove(row: Provider): void;
  /** «Проверить сейчас». */
  probe(row: Provider): void;
  busy: boolean;
  /** The provider whose probe is running now. */
  probing: string | null;
}

function menuOf(row: Provider, on: ProviderCardActions): MenuAction[] {
  if (row.id === DEFAULT_PROVIDER_ID) {
    // The environment's upstream: nothing to edit here; only put back in service after its key was refused.
    return row.health.state !== 'up' ? [{ label: 'Вернуть в работу', onSelect: () => on.restore(row), disabled: on.busy }] : [];
  }
  return [
    { label: 'Изменить', onSelect: () => on.edit(row) },
    { label: row.enabled ? 'Выключить' : 'Включить', onSelect: () => on.toggle(row), disabled: on.busy },
    { label: 'Удалить', onSelect: () => on.remove(row), danger: true },
  ];
}

export function ProviderCard({ row, open, on }: { row: Provider; open: boolean; on: ProviderCardActions }) {
  const { health, lastHour } = row;
  const titleId = `provider-${row.id}`;
  const pillClass = health.state === 'up' ? 'badge-ok' : health.state === 'disabled' ? 'badge-off' : 'badge-warn';
  return (
    <li
      className={open ? 'provider-card row-open' : 'provider-card'}
      data-provider-id={row.id}
      data-state={health.state}
      data-testid="provider-card"
      aria-labelledby={titleId}
    >
      <div className="provider-head">
        <h3 className="provider-name cut" id={titleId} title={row.name}>
          {row.name}
        </h3>
        <ActionsMenu label={`Действия: ${row.name}`} actions={menuOf(row, on)} testId="provider-menu" />
      </div>
      <div className="provider-pills">
        <span className={`badge pill ${pillClass}`} data-testid="provider-state" title={healthText(health)}>
          {statePill(health)}
        </span>
        {row.enabled ? null : <span className="badge pill badge-off">выключен</span>}
        {row.id === DEFAULT_PROVIDER_ID ? <span className="badge pill">встроенный</span> : null}
      </div>
      <code className="provider-url cut" title={row.baseUrl} data-testid="provider-url">
        {row.baseUrl}
      </code>
      <dl className="provider-facts">
        <div>
          <dt>Ключ</dt>
          <dd className="cut" data-testid="provider-key" title={row.apiKey ?? undefined}>
            {row.apiKey ? <code>{row.apiKey}</code> : <span className="muted">не задан</span>}
          </dd>
        </div>
        <div>
          <dt>Протокол</dt>
          <dd data-testid="provider-protocol">{row.protocol === 'anthropic' ? 'Anthropic' : 'OpenAI'}</dd>
        </div>
        <div>
          <dt>Таймаут</dt>
          <dd>{seconds(row.timeoutMs)}</dd>
        </div>
        {row.balance ? <BalanceFacts balance={row.balance} /> : null}
      </dl>
      <p className="provider-hour-title">За последний час</p>
      <dl className="provider-hour" data-testid="provider-hour">
        <div data-stat="attempts" title="Все обращения к провайдеру, и те, после которых запрос ушёл к другому провайдеру">
          <dt>Попыток</dt>
          <dd>{formatInt(lastHour.attempts)}</dd>
        </div>
        <div data-stat="faults" title="Ошибки на стороне провайдера: 5xx, 408, 429, таймауты, обрывы связи и потока, отклонённый ключ">
          <dt>Сбоев провайдера</dt>
          <dd>{formatInt(lastHour.faults)}</dd>
        </div>
        <div data-stat="client-errors" title="Ошибки в запросах клиентов (4xx), переданные клиенту: провайдер здесь ни при чём">
          <dt>Ошибок клиентов</dt>
          <dd>{formatInt(lastHour.clientErrors)}</dd>
        </div>
        <div data-stat="success-rate" title="Доля попыток без сбоя на стороне провайдера">
          <dt>Успешных</dt>
          <dd>{percent(lastHour.successRate)}</dd>
        </div>
        <div data-stat="p50" title="Медиана времени успешных ответов (из журнала запросов)">
          <dt>Медиана ответа</dt>
          <dd>{millis(lastHour.p50LatencyMs)}</dd>
        </div>
        <div data-stat="p95" title="95-й перцентиль времени успешных ответов: так долго или быстрее ответили 95 % запросов">
          <dt>Ответ, p95</dt>
          <dd>{millis(lastHour.p95LatencyMs)}</dd>
        </div>
      </dl>
      {/* The health in full: the pill says it in a word, this says why and since when. */}
      <div className="provider-health" data-testid="provider-health">
        <p className="hint">Состояние: {healthText(health)}</p>
        {health.consecutiveFailures > 0 ? (
          <p className="hint">
            Сбоев подряд: {formatInt(health.consecutiveFailures)}
            {health.lastFailureAt ? `, последний ${formatDateTime(health.lastFailureAt)}` : ''}
          </p>
        ) : null}
        {health.lastError ? (
          <p className="hint cut" title={health.lastError}>
            Последняя ошибка: {health.lastError}
          </p>
        ) : null}
      </div>
      <div className="provider-probes">
        <div className="provider-probes-head">
          <p className="provider-hour-title">Проверки</p>
          <Button variant="secondary" className="btn-small" onClick={() => on.probe(row)} pending={on.probing === row.id} pendingText="Проверяем…">
            Проверить сейчас
          </Button>
        </div>
        {row.probes.length > 0 ? (
          <ol className="provider-probe-list" data-testid="provider-probes" aria-label={`Последние проверки: ${row.name}`}>
            {row.probes.map((probe) => (
              <li key={`${probe.at}-${probe.trigger}`} className={probe.ok ? 'probe-ok' : 'probe-failed'} title={probe.error ?? undefined}>
                {probeLine(probe)}
              </li>
            ))}
          </ol>
        ) : (
          <p className="hint">Провайдера проверяют, пока он на паузе или отключён после сбоев.</p>
        )}
      </div>
    </li>
  );
}
