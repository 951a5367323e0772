// API keys: create (the full key shown once, with its warning and a copy button; optionally a spend
// limit per period, an expiry and rate limits), list with last use, limit, spend in the period and expiry, change a
// key's name, limit, expiry, rate limits and response cache in a dialog, revoke after a confirmation.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useRef, useState, type FormEvent } from 'react';
import { LIMIT_RESETS, type LimitReset } from '@server/keys/limits';
import { KEY_CACHE_MODES, type KeyCacheMode } from '@server/keys/types';
import { createKeyInput, updateKeyInput } from '@server/keys/input';
import type { Outputs } from '../app/api';
import { Money } from '../shared/Money';
import { Button, ConfirmDialog, CopyButton, CopyValue, Dialog, ErrorText, Field, Loading } from '../shared/ui';
import { currencySymbol, formatDateTime, formatMoney, fromLocalInput, periodStartText, toLocalInput } from '../shared/format';
import { useBillingConfig } from '../shared/billing-config';
import { limitResetLabels } from '../shared/texts';
import { check, decimalInput, decimalText, type FieldErrors } from '../shared/validate';
import { curlSnippet, nodeSnippet } from '../shared/snippets';
import { useActiveOrganization } from '../app/organization';
import { useMemberEmails } from '../organizations/member-emails';
import { can } from '../organizations/texts';
import { EMPTY_RATES, KeyRates, RateFields, rateChanges, ratesOf, type RateTexts } from './RateFields';

type CreatedKey = Outputs['keys']['create'];
type ListedKey = Outputs['keys']['list']['keys'][number];

/**
 * A key's name where it is shown: one line cut with «…», the full name in its title. Names run up to
 * 100 characters, and a wrapped one took six lines of a phone's list.
 */
function KeyName({ name }: { name: string }) {
  return (
    <span className="key-title" title={name}>
      {name}
    </span>
  );
}

const LIMIT_HINT =
  'Необязательно. Пусто — без лимита. Новый период начинается в 03:00 по московскому времени: сутки — каждый день, неделя — с понедельника, месяц — с 1-го числа.';
const EXPIRY_HINT = 'Необязательно. После этого момента запросы с ключом отклоняются; пусто — бессрочно.';

/** The limit fields shared by the creation form and the change dialog. */
function LimitFields({
  currency,
  limit,
  reset,
  expires,
  errors,
  onLimit,
  onReset,
  onExpires,
}: {
  currency: string | undefined;
  limit: string;
  reset: LimitReset;
  expires: string;
  errors: FieldErrors;
  onLimit(value: string): void;
  onReset(value: LimitReset): void;
  onExpires(value: string): void;
}) {
  return (
    <>
      <Field label={`Лимит расходов${currency ? `, ${currencySymbol(currency)}` : ''}`} hint={LIMIT_HINT} error={errors.spendLimit}>
        {(props) => <input {...props} name="spendLimit" inputMode="decimal" autoComplete="off" value={limit} onChange={(e) => onLimit(e.target.value)} />}
      </Field>
      <Field label="Период лимита" error={errors.limitReset}>
        {(props) => (
          <select {...props} name="limitReset" value={reset} onChange={(e) => onReset(e.target.value as LimitReset)}>
            {LIMIT_RESETS.map((r) => (
              <option key={r} value={r}>
                {limitResetLabels[r]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Действует до" hint={EXPIRY_HINT} error={errors.expiresAt}>
        {(props) => <input {...props} name="expiresAt" type="datetime-local" step={60} value={expires} onChange={(e) => onExpires(e.target.value)} />}
      </Field>
    </>
  );
}

/** What each response cache mode of a key does, as its select says it. */
const CACHE_LABELS: Record<KeyCacheMode, string> = {
  off: 'Только по заголовку x-conduit-cache: on',
  on: 'Для запросов с temperature 0',
  any: 'Для запросов с любой temperature',
};
const CACHE_HINT = 'Повтор того же запроса без stream в течение срока кэша отвечается без обращения к модели и стоит долю обычной цены (по умолчанию 10 %).';

/** The key's response cache: which of its chat requests a kept answer may serve. */
function CacheField({ value, error, onChange }: { value: KeyCacheMode; error?: string; onChange(value: KeyCacheMode): void }) {
  return (
    <Field label="Кэш ответов" hint={CACHE_HINT} error={error}>
      {(props) => (
        <select {...props} name="cache" value={value} onChange={(e) => onChange(e.target.value as KeyCacheMode)}>
          {KEY_CACHE_MODES.map((m) => (
            <option key={m} value={m}>
              {CACHE_LABELS[m]}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function limitText(key: Pick<ListedKey, 'spendLimit' | 'limitReset'>, currency: string | undefined): string {
  if (key.spendLimit === null) return 'без лимита';
  return `${formatMoney(key.spendLimit, currency, 'amount')} ${key.limitReset === 'none' ? 'всего' : limitResetLabels[key.limitReset]}`;
}

/** The share of its limit the key spent in this period, 0…1 (a zero limit counts as spent). */
const limitShare = (key: Pick<ListedKey, 'spendLimit' | 'spentThisPeriod'>) =>
  key.spendLimit === null ? 0 : key.spendLimit > 0 ? Math.min(1, key.spentThisPeriod / key.spendLimit) : 1;

/**
 * What the key's state badge says, worst first: revoked, expired, limit used up, active. «Лимит исчерпан»
 * only when the spend reached the limit: a call refused earlier (what is left could not cover that request's
 * reservation) leaves a key that still serves smaller requests, so the badge says how much is used.
 */
function keyState(key: ListedKey): { text: string; tone: 'ok' | 'off' | 'warn' } {
  if (!key.isActive) return { text: 'Отозван', tone: 'off' };
  if (key.expired) return { text: 'Истёк', tone: 'off' };
  if (key.spendLimit !== null && limitShare(key) >= 1) return { text: 'Лимит исчерпан', tone: 'off' };
  if (key.limitReached) return { text: `Израсходовано ${Math.round(limitShare(key) * 100)} %`, tone: 'warn' };
  return { text: 'Активен', tone: 'ok' };
}

/**
 * How much of the limit the key spent in its period: a bar with the numbers beside it, and where the
 * period began, in this browser's local time.
 */
function LimitUse({ apiKey, currency }: { apiKey: ListedKey; currency: string | undefined }) {
  if (apiKey.spendLimit === null) return <Money value={apiKey.spentThisPeriod} currency={currency} />;
  const share = limitShare(apiKey);
  const percent = Math.round(share * 100);
  const full = share >= 1;
  return (
    <span className="limit-use">
      <span
        className={`limit-bar${full ? ' limit-bar-full' : share >= 0.8 ? ' limit-bar-near' : ''}`}
        role="meter"
        aria-label={`Израсходовано лимита ключа «${apiKey.name}»`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent} %`}
        data-testid="key-limit-bar"
      >
        <span style={{ width: `${percent}%` }} />
      </span>
      <span className="limit-numbers">
        <Money value={apiKey.spentThisPeriod} currency={currency} /> из {formatMoney(apiKey.spendLimit, currency, 'amount')} ({percent} %)
      </span>
      {apiKey.limitReset !== 'none' ? (
        <span className="hint cell-note" data-testid="key-period-start">
          {periodStartText(apiKey.periodStart, apiKey.limitReset)}
        </span>
      ) : null}
    </span>
  );
}

/**
 * The change dialog: only what was changed is sent (PATCH), so an expiry shown to the minute is not
 * rewritten when only the name changed. An emptied limit removes it; an emptied expiry makes the key
 * permanent.
 */
function EditKeyForm({
  apiKey,
  currency,
  onSaved,
  onCancel,
}: {
  apiKey: ListedKey;
  currency: string | undefined;
  onSaved(key: ListedKey, changed: boolean): void;
  onCancel(): void;
}) {
  const initial = {
    name: apiKey.name,
    limit: apiKey.spendLimit === null ? '' : decimalText(apiKey.spendLimit),
    reset: apiKey.limitReset,
    expires: apiKey.expiresAt ? toLocalInput(apiKey.expiresAt) : '',
    cache: apiKey.cache,
  };
  const [name, setName] = useState(initial.name);
  const [limit, setLimit] = useState(initial.limit);
  const [reset, setReset] = useState<LimitReset>(initial.reset);
  const [expires, setExpires] = useState(initial.expires);
  const [cache, setCache] = useState<KeyCacheMode>(initial.cache);
  const [rates, setRates] = useState<RateTexts>(() => ratesOf(apiKey));
  const [errors, setErrors] = useState<FieldErrors>({});
  const trpc = useTRPC();
  const save = useMutation(trpc.keys.update.mutationOptions());

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const changes: Record<string, unknown> = { id: apiKey.id };
    if (name !== initial.name) changes.name = name;
    if (limit.trim() !== initial.limit) changes.spendLimit = limit.trim() === '' ? null : decimalInput(limit);
    if (reset !== initial.reset) changes.limitReset = reset;
    if (expires !== initial.expires) changes.expiresAt = expires === '' ? null : fromLocalInput(expires);
    if (cache !== initial.cache) changes.cache = cache;
    Object.assign(changes, rateChanges(rates, ratesOf(apiKey)));
    const checked = check(updateKeyInput, changes);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    if (Object.keys(changes).length === 1) {
      onSaved(apiKey, false);
      return;
    }
    const updated = await answerOf(save.mutateAsync(checked.data));
    if (updated) onSaved(updated, true);
  };

  return (
    <form onSubmit={onSubmit} noValidate data-testid="edit-key-form">
      <Field label="Название ключа" error={errors.name}>
        {(props) => <input {...props} name="editKeyName" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <LimitFields currency={currency} limit={limit} reset={reset} expires={expires} errors={errors} onLimit={setLimit} onReset={setReset} onExpires={setExpires} />
      <CacheField value={cache} error={errors.cache} onChange={setCache} />
      <RateFields values={rates} errors={errors} onChange={setRates} />
      <ErrorText error={apiError(save.error)} />
      <div className="actions">
        <Button type="submit" pending={save.isPending} pendingText="Сохраняем…">
          Сохранить
        </Button>
        <Button variant="secondary" onClick={onCancel} disabled={save.isPending}>
          Отмена
        </Button>
      </div>
    </form>
  );
}

/** The first call with the new key, ready to paste: curl and the official OpenAI SDK, with the full base URL. */
function KeySnippets({ apiKey }: { apiKey: string }) {
  const baseUrl = `${window.location.origin}/v1`;
  const snippets = [
    { title: 'curl', code: curlSnippet(baseUrl, apiKey) },
    { title: 'OpenAI SDK (JavaScript)', code: nodeSnippet(baseUrl, apiKey) },
  ];
  return (
    <div className="key-snippets" data-testid="key-snippets">
      {snippets.map((s) => (
        <figure key={s.title} className="snippet">
          <figcaption>
            {s.title} <CopyButton text={s.code} label={`Копировать пример ${s.title}`} />
          </figcaption>
          <pre tabIndex={0}>
            <code>{s.code}</code>
          </pre>
        </figure>
      ))}
    </div>
  );
}

/** Who made an organisation's key: a member's e-mail, or a note when that person is no longer a member. */
function creatorText(key: ListedKey, emails: Map<string, string>): string {
  const creator = key.createdBy;
  if (!creator) return '—';
  return emails.get(creator) ?? 'бывший участник';
}

export function KeysScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.keys.list.queryOptions());
  // In an organisation the keys are its own; owners and admins see every member's and who made each, a
  // developer only theirs. A developer may not see the balance, so the zero-balance note is not asked for.
  const organization = useActiveOrganization();
  const showCreator = organization !== null && (organization.role === 'owner' || organization.role === 'admin');
  const creators = useMemberEmails(showCreator ? organization.id : null);
  const balance = useQuery(trpc.account.balance.queryOptions(undefined, { enabled: can(organization?.role ?? null, 'balance') }));
  const billing = useBillingConfig();
  const currency = billing.data?.currency;
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [reset, setReset] = useState<LimitReset>('month');
  const [expires, setExpires] = useState('');
  const [cache, setCache] = useState<KeyCacheMode>('off');
  const [rates, setRates] = useState<RateTexts>(EMPTY_RATES);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ListedKey | null>(null);
  const [editing, setEditing] = useState<ListedKey | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [hideRevoked, setHideRevoked] = useState(false);
  const create = useMutation(trpc.keys.create.mutationOptions());
  const revoke = useMutation(trpc.keys.revoke.mutationOptions());
  const nameInput = useRef<HTMLInputElement>(null);

  const onCreate = async (event: FormEvent) => {
    event.preventDefault();
    const spendLimit = decimalInput(limit);
    const checked = check(createKeyInput, {
      name,
      spendLimit,
      // A period without a limit would mean nothing: it is sent with the limit only.
      limitReset: spendLimit === undefined ? undefined : reset,
      expiresAt: fromLocalInput(expires),
      cache,
      ...rateChanges(rates),
    });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    setMessage(null);
    const result = await answerOf(create.mutateAsync(checked.data));
    if (!result) return;
    setCreated(result);
    // The zero-balance note beside the new key must say what holds now, not at the screen's opening.
    if (can(organization?.role ?? null, 'balance')) void balance.refetch();
    setName('');
    setLimit('');
    setExpires('');
    setCache('off');
    setRates(EMPTY_RATES);
    void queryClient.invalidateQueries({ queryKey: trpc.keys.pathKey() });
  };

  const onRevoke = async () => {
    if (!revoking) return;
    const result = await answerOf(revoke.mutateAsync({ id: revoking.id }));
    if (!result) return;
    setMessage(`${result.message}: «${revoking.name}»`);
    setRevoking(null);
    void queryClient.invalidateQueries({ queryKey: trpc.keys.pathKey() });
  };

  return (
    <>
      <div className="page-head">
        <h1>{organization ? `API-ключи организации «${organization.name}»` : 'API-ключи'}</h1>
      </div>

      <section className="card" aria-labelledby="new-key-title">
        <h2 id="new-key-title">Новый ключ</h2>
        <form onSubmit={onCreate} noValidate data-testid="new-key-form">
          <div className="grid">
            <Field label="Название" hint="Например, «Сайт» или «Бот поддержки»" error={errors.name}>
              {(props) => <input {...props} ref={nameInput} name="keyName" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />}
            </Field>
            <LimitFields
              currency={currency}
              limit={limit}
              reset={reset}
              expires={expires}
              errors={errors}
              onLimit={setLimit}
              onReset={setReset}
              onExpires={setExpires}
            />
            <CacheField value={cache} error={errors.cache} onChange={setCache} />
            <RateFields values={rates} errors={errors} onChange={setRates} />
          </div>
          <div className="actions">
            <Button type="submit" pending={create.isPending} pendingText="Создаём…">
              Создать ключ
            </Button>
          </div>
        </form>
        <ErrorText error={apiError(create.error)} />

        {created ? (
          // Keyed by the key: a new key's panel starts afresh, so its copy buttons do not say «Скопировано»
          // about the previous key's value, which is what the clipboard still holds.
          <div key={created.id} className="created-key" role="region" aria-label="Новый ключ" data-testid="created-key">
            <p className="warning" role="alert">
              {created.warning}
            </p>
            <CopyValue value={created.key} label="Полный ключ" testId="new-key-value" />
            {balance.data && balance.data.balance <= 0 ? (
              <p className="notice" data-testid="new-key-zero-balance">
                Баланс сейчас нулевой: запросы с этим ключом будут отклонены, пока баланс не пополнится.
              </p>
            ) : null}
            <p className="muted">
              Ключ «<KeyName name={created.name} />» создан {formatDateTime(created.createdAt)}. Передавайте его в заголовке <code>Authorization: Bearer …</code> при
              запросах к <code>/v1/chat/completions</code>. Все запросы и ответы — в <a href="/docs">документации API</a>.
            </p>
            <KeySnippets apiKey={created.key} />
            <Button
              variant="secondary"
              onClick={() => {
                setCreated(null);
                nameInput.current?.focus();
              }}
            >
              Ключ сохранён, скрыть
            </Button>
          </div>
        ) : null}
      </section>

      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">{organization ? (showCreator ? 'Ключи организации' : 'Ваши ключи в организации') : 'Ваши ключи'}</h2>
        {keys.data?.keys.some((k) => !k.isActive) ? (
          <label className="checkbox">
            <input type="checkbox" checked={hideRevoked} onChange={(e) => setHideRevoked(e.target.checked)} data-testid="hide-revoked" />
            Скрыть отозванные ключи ({keys.data.keys.filter((k) => !k.isActive).length})
          </label>
        ) : null}
        {message ? (
          <p className="success" role="status">
            {message}
          </p>
        ) : null}
        <ErrorText error={apiError(keys.error)} />
        {keys.isPending ? <Loading /> : null}
        {keys.data && keys.data.keys.length === 0 ? <p className="muted">Ключей пока нет.</p> : null}
        {keys.data && keys.data.keys.length > 0 ? (
          <div className="table-wrap">
            <table className="stack-table wrap-head" data-testid="keys-table">
              <thead>
                <tr>
                  <th scope="col">Ключ</th>
                  {showCreator ? <th scope="col">Создатель</th> : null}
                  <th scope="col">Создан</th>
                  <th scope="col">Последнее использование</th>
                  <th scope="col">Лимит</th>
                  <th scope="col">Потрачено за период</th>
                  <th scope="col">Действует до</th>
                  <th scope="col">Состояние</th>
                  <th scope="col">
                    <span className="visually-hidden">Действия</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.keys
                  .filter((key) => key.isActive || !hideRevoked)
                  .map((key) => (
                    <tr key={key.id} data-key-id={key.id}>
                      <td data-label="Ключ" className="key-name">
                        <span>
                          <KeyName name={key.name} />
                          <code className="key-prefix">{key.keyPrefix}…</code>
                          {key.cache !== 'off' ? (
                            <span className="hint cell-note" data-testid="key-cache">
                              Кэш ответов: {key.cache === 'on' ? 'temperature 0' : 'любая temperature'}
                            </span>
                          ) : null}
                        </span>
                      </td>
                      {showCreator ? (
                        <td data-label="Создатель" data-testid="key-creator">
                          {creatorText(key, creators)}
                        </td>
                      ) : null}
                      <td data-label="Создан">{formatDateTime(key.createdAt)}</td>
                      <td data-label="Использован" data-testid="last-used">
                        {key.lastUsedAt ? formatDateTime(key.lastUsedAt) : 'ещё не использовался'}
                      </td>
                      <td data-label="Лимит">
                        <span data-testid="key-limit">{limitText(key, currency)}</span>
                        <KeyRates apiKey={key} />
                      </td>
                      <td data-label="Потрачено" data-testid="key-spent">
                        <LimitUse apiKey={key} currency={currency} />
                      </td>
                      <td data-label="Действует до" data-testid="key-expiry">
                        {key.expiresAt ? formatDateTime(key.expiresAt) : 'бессрочно'}
                      </td>
                      <td data-label="Состояние" data-testid="key-state">
                        <span className={`badge badge-${keyState(key).tone}`}>{keyState(key).text}</span>
                      </td>
                      <td>
                        {key.isActive ? (
                          <div className="row-actions">
                            <Button
                              variant="secondary"
                              aria-label={`Изменить ключ «${key.name}»`}
                              onClick={() => {
                                setMessage(null);
                                setEditing(key);
                              }}
                            >
                              Изменить
                            </Button>
                            <Button
                              variant="danger"
                              aria-label={`Отозвать ключ «${key.name}»`}
                              onClick={() => {
                                revoke.reset();
                                setRevoking(key);
                              }}
                            >
                              Отозвать
                            </Button>
                          </div>
                        ) : null}
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>

      <Dialog open={editing !== null} title={`Изменить ключ «${editing?.name ?? ''}»`} cutTitle onClose={() => setEditing(null)} testId="edit-key-dialog">
        {editing ? (
          <EditKeyForm
            key={editing.id}
            apiKey={editing}
            currency={currency}
            onCancel={() => setEditing(null)}
            onSaved={(saved, changed) => {
              setMessage(changed ? `Ключ «${saved.name}» сохранён` : `Ключ «${saved.name}»: изменений нет`);
              setEditing(null);
              if (changed) void queryClient.invalidateQueries({ queryKey: trpc.keys.pathKey() });
            }}
          />
        ) : null}
      </Dialog>

      <ConfirmDialog
        open={revoking !== null}
        title="Отозвать ключ?"
        confirmText="Отозвать"
        pending={revoke.isPending}
        error={apiError(revoke.error)}
        onConfirm={onRevoke}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Ключ «<KeyName name={revoking?.name ?? ''} />» ({revoking?.keyPrefix}…) перестанет работать сразу: запросы с ним будут отклоняться. Отменить это нельзя.
        </p>
      </ConfirmDialog>
    </>
  );
}
