// One provider in «Провайдеры» as a card that keeps its shape at any width (issue 41 point 4): the name and
// the address each on one line, cut with «…» and whole in their tooltip; the state as a short pill that
// never wraps; the last hour's attempts with the provider's own faults and the clients' errors apart; the
// actions in a «⋯» menu, so no button is ever cut at the card's edge.
import type { Outputs } from '../app/api';
import { formatClock, formatDateTime, formatInt } from '../shared/format';
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

export interface ProviderCardActions {
  edit(row: Provider): void;
  toggle(row: Provider): void;
  restore(row: Provider): void;
  remove(row: Provider): void;
  busy: boolean;
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
        <div data-stat="p50" title="Медиана времени успешных ответов">
          <dt>Медиана ответа</dt>
          <dd>{lastHour.p50LatencyMs === null ? '—' : `${formatInt(lastHour.p50LatencyMs)} мс`}</dd>
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
    </li>
  );
}
