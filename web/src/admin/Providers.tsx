// «Провайдеры»: where model requests go — the built-in `default` (the environment's upstream) and the
// providers added here — each with its health (working, paused after failures, or disabled because its
// key was refused) and its last hour from the usage log. Providers are added, changed, switched off and
// on, and deleted here; the key is write-only: the list shows it masked, and an empty field keeps it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC, useTRPCClient } from '../app/trpc';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { createProviderInput, patchProviderInput } from '@server/admin/input';
import type { Outputs } from '../app/api';
import { Button, ConfirmDialog, Field, Loading } from '../shared/ui';
import { formatClock, formatInt } from '../shared/format';
import { check, decimalInput, type FieldErrors, withServerErrors } from '../shared/validate';
import { AdminError } from './AdminError';

type Provider = Outputs['admin']['listProviders']['data'][number];

const DEFAULT_ID = 'default';
const DEFAULT_TIMEOUT_MS = 60_000;
const FIELDS_REFUSED = 'Не сохранено: исправьте поля, отмеченные выше';

/** The provider's health in words, as the operator reads it. */
export function healthText(health: Provider['health']): string {
  if (health.state === 'cooling_down') return health.cooldownUntil ? `пауза после сбоев до ${formatClock(health.cooldownUntil)}` : 'пауза после сбоев';
  if (health.state === 'disabled') return 'отключён: ключ отклонён';
  return 'работает';
}

const seconds = (ms: number) => `${formatInt(ms / 1000)} с`;

interface ProviderValues {
  name: string;
  baseUrl: string;
  apiKey: string;
  timeoutMs: string;
  enabled: boolean;
}

function ProviderForm({ editing, onSaved, onCancel }: { editing: Provider | null; onSaved(row: Provider, created: boolean): void; onCancel(): void }) {
  const [values, setValues] = useState<ProviderValues>({
    name: editing?.name ?? '',
    baseUrl: editing?.baseUrl ?? '',
    apiKey: '',
    timeoutMs: String(editing?.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    enabled: editing?.enabled ?? true,
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const client = useTRPCClient();
  const save = useMutation({
    mutationFn: (input: { name: string; baseUrl: string; apiKey?: string; timeoutMs: number; enabled: boolean }) =>
      editing ? client.admin.updateProvider.mutate({ id: editing.id, ...input }) : client.admin.createProvider.mutate(input),
  });
  const saveError = apiError(save.error);
  const first = useRef<HTMLInputElement>(null);
  const shown = withServerErrors(errors, apiError(save.error));
  const set = (patch: Partial<ProviderValues>) => setValues((v) => ({ ...v, ...patch }));

  useEffect(() => {
    if (editing) first.current?.focus();
  }, [editing]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const input = {
      name: values.name,
      baseUrl: values.baseUrl,
      // Write-only: an empty field keeps the stored key (and a new provider simply has none).
      ...(values.apiKey.trim() ? { apiKey: values.apiKey } : {}),
      timeoutMs: decimalInput(values.timeoutMs) ?? Number.NaN,
      enabled: values.enabled,
    };
    const checked = editing ? check(patchProviderInput, { id: editing.id, ...input }) : check(createProviderInput, input);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const row = await answerOf(save.mutateAsync(input));
    if (!row) return;
    onSaved(row, !editing);
    if (!editing) setValues({ name: '', baseUrl: '', apiKey: '', timeoutMs: String(DEFAULT_TIMEOUT_MS), enabled: true });
  };

  return (
    <form onSubmit={onSubmit} noValidate data-testid="provider-form" aria-label={editing ? `Изменить провайдера ${editing.name}` : 'Новый провайдер'}>
      <h3>{editing ? `Изменить провайдера «${editing.name}»` : 'Новый провайдер'}</h3>
      <div className="grid">
        <Field label="Название" error={shown.name}>
          {(props) => <input {...props} ref={first} name="providerName" value={values.name} onChange={(e) => set({ name: e.target.value })} autoComplete="off" />}
        </Field>
        <Field label="Адрес API" hint="OpenAI-совместимый, например https://api.openai.com/v1" error={shown.baseUrl}>
          {(props) => (
            <input
              {...props}
              name="providerBaseUrl"
              type="url"
              inputMode="url"
              value={values.baseUrl}
              onChange={(e) => set({ baseUrl: e.target.value })}
              spellCheck={false}
            />
          )}
        </Field>
        <Field
          label="Ключ API"
          hint={
            editing
              ? `Сейчас: ${editing.apiKey ?? 'не задан'}. Пустое поле оставляет ключ прежним`
              : 'Хранится зашифрованным; после сохранения виден только замаскированным'
          }
          error={shown.apiKey}
        >
          {(props) => (
            <input
              {...props}
              name="providerApiKey"
              type="password"
              autoComplete="new-password"
              value={values.apiKey}
              onChange={(e) => set({ apiKey: e.target.value })}
              spellCheck={false}
            />
          )}
        </Field>
        <Field label="Таймаут, мс" hint="Сколько ждать начала ответа: от 100 до 250000 мс" error={shown.timeoutMs}>
          {(props) => (
            <input
              {...props}
              name="providerTimeout"
              inputMode="numeric"
              autoComplete="off"
              value={values.timeoutMs}
              onChange={(e) => set({ timeoutMs: e.target.value })}
            />
          )}
        </Field>
      </div>
      <label className="checkbox">
        <input type="checkbox" name="providerEnabled" checked={values.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
        Включён: маршруты отправляют ему запросы
      </label>
      <div className="actions">
        <Button type="submit" pending={save.isPending} pendingText="Сохраняем…">
          {editing ? 'Сохранить провайдера' : 'Добавить провайдера'}
        </Button>
        {editing ? (
          <Button variant="secondary" onClick={onCancel} disabled={save.isPending}>
            Отмена
          </Button>
        ) : null}
      </div>
      <AdminError error={saveError?.fields ? { ...saveError, message: FIELDS_REFUSED } : saveError} />
    </form>
  );
}

export function ProvidersScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.admin.listProviders.queryOptions());
  const [editing, setEditing] = useState<Provider | null>(null);
  const [deleting, setDeleting] = useState<Provider | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const remove = useMutation(trpc.admin.deleteProvider.mutationOptions());
  // Switching off and on, and putting `default` back in service after its key was refused.
  const toggle = useMutation(trpc.admin.updateProvider.mutationOptions());
  const rows = list.data?.data ?? [];

  const onDelete = async () => {
    if (!deleting) return;
    const result = await answerOf(remove.mutateAsync({ id: deleting.id }));
    if (!result) return;
    setMessage(`${result.message}: ${deleting.name}`);
    if (editing?.id === deleting.id) setEditing(null);
    setDeleting(null);
    void queryClient.invalidateQueries({ queryKey: trpc.admin.listProviders.pathKey() });
  };

  const onToggle = async (row: Provider, patch: { enabled?: boolean }, done: string) => {
    setMessage(null);
    const saved = await answerOf(toggle.mutateAsync({ id: row.id, ...patch }));
    if (!saved) return;
    setMessage(done);
    void queryClient.invalidateQueries({ queryKey: trpc.admin.listProviders.pathKey() });
  };

  return (
    <>
      <section className="card" aria-labelledby="providers-title" data-testid="admin-providers">
        <div className="section-head">
          <h2 id="providers-title">Провайдеры</h2>
          <Button variant="secondary" onClick={() => void list.refetch()} disabled={list.isFetching} aria-label="Обновить список провайдеров">
            Обновить
          </Button>
        </div>
        <p className="hint">
          Куда уходят запросы к моделям. Встроенный провайдер default задаётся окружением (UPSTREAM_BASE_URL); остальные добавляются здесь, а маршруты указывают,
          какой модели какие провайдеры отвечают. Запросы, ошибки и медиана времени ответа — за последний час.
        </p>
        {message ? (
          <p className="success" role="status">
            {message}
          </p>
        ) : null}
        <AdminError error={apiError(list.error)} />
        <AdminError error={apiError(toggle.error)} />
        {list.isPending ? <Loading text="Загружаем провайдеров…" /> : null}
        {rows.length > 0 ? (
          <div className="table-wrap">
            <table className="stack-table" data-testid="providers-table" aria-busy={list.isFetching}>
              <thead>
                <tr>
                  <th scope="col">Название</th>
                  <th scope="col">Адрес</th>
                  <th scope="col">Ключ</th>
                  <th scope="col">Таймаут</th>
                  <th scope="col">Состояние</th>
                  <th scope="col" className="num">
                    Запросов за час
                  </th>
                  <th scope="col" className="num">
                    Ошибок за час
                  </th>
                  <th scope="col" className="num">
                    Медиана ответа
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">Действия</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.id} data-provider-id={row.id} data-state={row.health.state} className={editing?.id === row.id ? 'row-open' : undefined}>
                    <td data-label="Название" className="wrap-anywhere">
                      <strong>{row.name}</strong>
                      {row.id === DEFAULT_ID ? <span className="hint"> встроенный</span> : null}
                    </td>
                    <td data-label="Адрес" className="wrap-anywhere">
                      <code>{row.baseUrl}</code>
                    </td>
                    <td data-label="Ключ" className="wrap-anywhere" data-testid="provider-key">
                      {row.apiKey ? <code>{row.apiKey}</code> : <span className="muted">не задан</span>}
                    </td>
                    <td data-label="Таймаут">{seconds(row.timeoutMs)}</td>
                    <td data-label="Состояние" data-testid="provider-health">
                      {/* One block: on a phone the cell is a row of its label and this. */}
                      <div className="provider-health">
                        <div>
                          {row.enabled ? null : <span className="badge badge-off">Выключен</span>}{' '}
                          <span className={`badge ${row.health.state === 'up' ? 'badge-ok' : 'badge-off'}`}>{healthText(row.health)}</span>
                        </div>
                        {row.health.consecutiveFailures > 0 ? <div>Сбоев подряд: {formatInt(row.health.consecutiveFailures)}</div> : null}
                        {row.health.lastError ? <div className="hint wrap-anywhere">Последняя ошибка: {row.health.lastError}</div> : null}
                      </div>
                    </td>
                    <td data-label="Запросов за час" className="num">
                      {formatInt(row.lastHour.requests)}
                    </td>
                    <td data-label="Ошибок за час" className="num">
                      {formatInt(row.lastHour.errors)}
                    </td>
                    <td data-label="Медиана ответа" className="num">
                      {row.lastHour.p50LatencyMs === null ? '—' : `${formatInt(row.lastHour.p50LatencyMs)} мс`}
                    </td>
                    <td>
                      <div className="row-actions">
                        {row.id === DEFAULT_ID ? (
                          row.health.state !== 'up' ? (
                            <Button
                              variant="secondary"
                              aria-label="Вернуть в работу default"
                              onClick={() => onToggle(row, {}, 'Провайдер default возвращён в работу')}
                            >
                              Вернуть в работу
                            </Button>
                          ) : null
                        ) : (
                          <>
                            <Button
                              variant="secondary"
                              aria-label={`Изменить провайдера ${row.name}`}
                              onClick={() => {
                                setMessage(null);
                                setEditing(row);
                              }}
                            >
                              Изменить
                            </Button>
                            <Button
                              variant="secondary"
                              aria-label={`${row.enabled ? 'Выключить' : 'Включить'} провайдера ${row.name}`}
                              disabled={toggle.isPending}
                              onClick={() =>
                                onToggle(row, { enabled: !row.enabled }, row.enabled ? `Провайдер ${row.name} выключен` : `Провайдер ${row.name} включён`)
                              }
                            >
                              {row.enabled ? 'Выключить' : 'Включить'}
                            </Button>
                            <Button
                              variant="danger"
                              aria-label={`Удалить провайдера ${row.name}`}
                              onClick={() => {
                                remove.reset();
                                setDeleting(row);
                              }}
                            >
                              Удалить
                            </Button>
                          </>
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}

        <div className="tool">
          <ProviderForm
            key={editing?.id ?? '+new'}
            editing={editing}
            onCancel={() => setEditing(null)}
            onSaved={(row, created) => {
              setMessage(`Провайдер ${row.name} ${created ? 'добавлен' : 'сохранён'}`);
              setEditing(null);
              void queryClient.invalidateQueries({ queryKey: trpc.admin.listProviders.pathKey() });
            }}
          />
        </div>
      </section>

      <ConfirmDialog
        open={deleting !== null}
        title="Удалить провайдера?"
        confirmText="Удалить"
        pending={remove.isPending}
        error={apiError(remove.error)}
        onConfirm={onDelete}
        onCancel={() => setDeleting(null)}
      >
        <p>Провайдер «{deleting?.name}» будет удалён вместе с его ключом. Провайдера, на которого ссылается маршрут, удалить нельзя: сначала измените маршрут.</p>
      </ConfirmDialog>
    </>
  );
}
