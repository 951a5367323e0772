// «Провайдеры»: where model requests go — the built-in `default` (the environment's upstream) and the
// providers added here — each a card (ProviderCard.tsx) with its health (working, paused after failures, or
// disabled because its key was refused) and its last hour: attempts, its own faults, the clients' errors.
// Providers are added, changed, switched off and on, and deleted here; the key is write-only: the list shows it masked, and an empty field keeps it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC, useTRPCClient } from '../app/trpc';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { createProviderInput, patchProviderInput } from '@server/admin/input';
import { Button, ConfirmDialog, Field, Loading } from '../shared/ui';
import { DEFAULT_PROVIDER_ID, ProviderCard, type Provider, type ProviderCardActions } from './ProviderCard';
import { check, decimalInput, type FieldErrors, withServerErrors } from '../shared/validate';
import { AdminError } from './AdminError';
import './admin.css';

const DEFAULT_TIMEOUT_MS = 60_000;
const FIELDS_REFUSED = 'Не сохранено: исправьте поля, отмеченные выше';

interface ProviderValues {
  name: string;
  baseUrl: string;
  apiKey: string;
  timeoutMs: string;
  enabled: boolean;
  protocol: Protocol;
}

type Protocol = 'openai' | 'anthropic';
const PROTOCOL_HINTS: Record<Protocol, string> = {
  openai: 'OpenAI-совместимый, например https://api.openai.com/v1',
  anthropic: 'Messages API Anthropic, например https://api.anthropic.com/v1',
};

function ProviderForm({ editing, onSaved, onCancel }: { editing: Provider | null; onSaved(row: Provider, created: boolean): void; onCancel(): void }) {
  const [values, setValues] = useState<ProviderValues>({
    name: editing?.name ?? '',
    baseUrl: editing?.baseUrl ?? '',
    apiKey: '',
    timeoutMs: String(editing?.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    enabled: editing?.enabled ?? true,
    protocol: editing?.protocol ?? 'openai',
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const client = useTRPCClient();
  const save = useMutation({
    mutationFn: (input: { name: string; baseUrl: string; apiKey?: string; timeoutMs: number; enabled: boolean; protocol: Protocol }) =>
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
      protocol: values.protocol,
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
    if (!editing) setValues({ name: '', baseUrl: '', apiKey: '', timeoutMs: String(DEFAULT_TIMEOUT_MS), enabled: true, protocol: 'openai' });
  };

  return (
    <form onSubmit={onSubmit} noValidate data-testid="provider-form" aria-label={editing ? `Изменить провайдера ${editing.name}` : 'Новый провайдер'}>
      <h3>{editing ? `Изменить провайдера «${editing.name}»` : 'Новый провайдер'}</h3>
      <div className="grid">
        <Field label="Название" error={shown.name}>
          {(props) => <input {...props} ref={first} name="providerName" value={values.name} onChange={(e) => set({ name: e.target.value })} autoComplete="off" />}
        </Field>
        <Field label="Протокол" hint="Какой API говорит провайдер; запросы другого протокола переводятся" error={shown.protocol}>
          {(props) => (
            <select {...props} name="providerProtocol" value={values.protocol} onChange={(e) => set({ protocol: e.target.value as Protocol })}>
              <option value="openai">OpenAI (chat completions)</option>
              <option value="anthropic">Anthropic (Messages)</option>
            </select>
          )}
        </Field>
        <Field label="Адрес API" hint={PROTOCOL_HINTS[values.protocol]} error={shown.baseUrl}>
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

  const cardActions: ProviderCardActions = {
    edit: (row) => {
      setMessage(null);
      setEditing(row);
    },
    toggle: (row) => onToggle(row, { enabled: !row.enabled }, row.enabled ? `Провайдер ${row.name} выключен` : `Провайдер ${row.name} включён`),
    restore: (row) => onToggle(row, {}, `Провайдер ${DEFAULT_PROVIDER_ID} возвращён в работу`),
    remove: (row) => {
      remove.reset();
      setDeleting(row);
    },
    busy: toggle.isPending,
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
          какой модели какие провайдеры отвечают. За последний час: попытки (и те, после которых запрос ушёл к другому провайдеру), сбои самого провайдера, ошибки в
          запросах клиентов и медиана времени успешного ответа.
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
          <ul className="provider-cards" data-testid="providers-list" aria-label="Провайдеры" aria-busy={list.isFetching}>
            {rows.map((row) => (
              <ProviderCard key={row.id} row={row} open={editing?.id === row.id} on={cardActions} />
            ))}
          </ul>
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
