// «Маршруты»: which providers answer a model id or a prefix (openai/*; the longest match wins, as in the
// price table), in order — a lower priority is tried first, within a priority the weight shares the
// requests — and under which model id the provider knows the model. Routes are added, changed and
// deleted here; a refused field is shown under itself, down to one target's field.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { putRouteInput } from '@server/admin/input';
import type { ApiError, Outputs } from '../app/api';
import { Button, ConfirmDialog, Field, Loading } from '../shared/ui';
import { formatDateTime } from '../shared/format';
import { decimalInput, type FieldErrors } from '../shared/validate';
import { AdminError } from './AdminError';

type Route = Outputs['admin']['listRoutes']['routes'][number];
type Provider = Outputs['admin']['listProviders']['data'][number];

const FIELDS_REFUSED = 'Не сохранено: исправьте поля, отмеченные выше';

interface TargetValues {
  providerId: string;
  priority: string;
  weight: string;
  model: string;
}

/** `targets[1].weight` (a schema's refusal) and `targets.1.weight` (the service's) are the same field. */
const fieldKey = (path: string) => path.replace(/\[(\d+)\]/g, '.$1');

/** Every refused field by its whole path, so each target's own field carries its message. */
function errorsByPath(issues: { path: PropertyKey[]; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) errors[issue.path.map(String).join('.')] ??= issue.message;
  return errors;
}

function serverErrors(error: ApiError | undefined): FieldErrors {
  const errors: FieldErrors = {};
  for (const [path, message] of Object.entries(error?.fields ?? {})) errors[fieldKey(path)] ??= message;
  return errors;
}

/** Targets in the order they are tried: priority up, then the heavier weight first. */
const inOrder = (targets: Route['targets']) => [...targets].sort((a, b) => a.priority - b.priority || b.weight - a.weight);

function RouteForm({
  editing,
  providers,
  onSaved,
  onCancel,
}: {
  editing: Route | null;
  providers: Provider[];
  onSaved(row: Route, created: boolean): void;
  onCancel(): void;
}) {
  const blank = (): TargetValues => ({ providerId: providers[0]?.id ?? 'default', priority: '0', weight: '1', model: '' });
  const [pattern, setPattern] = useState(editing?.pattern ?? '');
  const [targets, setTargets] = useState<TargetValues[]>(
    editing ? editing.targets.map((t) => ({ providerId: t.providerId, priority: String(t.priority), weight: String(t.weight), model: t.model ?? '' })) : [blank()],
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const trpc = useTRPC();
  const save = useMutation(trpc.admin.putRoute.mutationOptions());
  const saveError = apiError(save.error);
  const first = useRef<HTMLSelectElement>(null);
  const shown: FieldErrors = { ...serverErrors(apiError(save.error)), ...errors };

  useEffect(() => {
    if (editing) first.current?.focus();
  }, [editing]);

  const setTarget = (index: number, patch: Partial<TargetValues>) => setTargets((list) => list.map((t, i) => (i === index ? { ...t, ...patch } : t)));

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const input = {
      pattern,
      targets: targets.map((t) => ({
        providerId: t.providerId,
        priority: decimalInput(t.priority),
        weight: decimalInput(t.weight),
        ...(t.model.trim() ? { model: t.model } : {}),
      })),
    };
    const checked = putRouteInput.safeParse(input);
    if (!checked.success) {
      setErrors(errorsByPath(checked.error.issues));
      return;
    }
    setErrors({});
    const row = await answerOf(save.mutateAsync(input));
    if (!row) return;
    onSaved(row, !editing);
    if (!editing) {
      setPattern('');
      setTargets([blank()]);
    }
  };

  const names = new Map(providers.map((p) => [p.id, p.name]));
  return (
    <form onSubmit={onSubmit} noValidate data-testid="route-form" aria-label={editing ? `Изменить маршрут ${editing.pattern}` : 'Новый маршрут'}>
      <h3>{editing ? `Изменить маршрут «${editing.pattern}»` : 'Новый маршрут'}</h3>
      <Field
        label="Шаблон модели"
        hint={
          editing
            ? 'Шаблон не меняется: чтобы задать другой, добавьте новый маршрут'
            : 'Идентификатор модели (openai/gpt-4o-mini) или префикс со звёздочкой (openai/*, *)'
        }
        error={shown.pattern}
      >
        {(props) => (
          <input {...props} name="routePattern" value={pattern} readOnly={Boolean(editing)} onChange={(e) => setPattern(e.target.value)} spellCheck={false} />
        )}
      </Field>
      {targets.map((target, index) => {
        const n = index + 1;
        return (
          <fieldset className="mapping route-target" key={index} data-testid="route-target">
            <legend>Цель маршрута {n}</legend>
            <div className="grid">
              <Field label={`Провайдер ${n}`} error={shown[`targets.${index}.providerId`]}>
                {(props) => (
                  <select
                    {...props}
                    ref={index === 0 ? first : undefined}
                    name={`targetProvider${n}`}
                    value={target.providerId}
                    onChange={(e) => setTarget(index, { providerId: e.target.value })}
                  >
                    {names.has(target.providerId) ? null : <option value={target.providerId}>{target.providerId}</option>}
                    {providers.map((p) => (
                      <option key={p.id} value={p.id}>
                        {p.name}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label={`Приоритет ${n}`} hint="0–1000, меньший пробуется раньше" error={shown[`targets.${index}.priority`]}>
                {(props) => (
                  <input
                    {...props}
                    name={`targetPriority${n}`}
                    inputMode="numeric"
                    autoComplete="off"
                    value={target.priority}
                    onChange={(e) => setTarget(index, { priority: e.target.value })}
                  />
                )}
              </Field>
              <Field label={`Вес ${n}`} hint="1–1000, доля запросов среди равных по приоритету" error={shown[`targets.${index}.weight`]}>
                {(props) => (
                  <input
                    {...props}
                    name={`targetWeight${n}`}
                    inputMode="numeric"
                    autoComplete="off"
                    value={target.weight}
                    onChange={(e) => setTarget(index, { weight: e.target.value })}
                  />
                )}
              </Field>
              <Field label={`Модель у провайдера ${n}`} hint="Пусто — тот же идентификатор, что спросил клиент" error={shown[`targets.${index}.model`]}>
                {(props) => (
                  <input
                    {...props}
                    name={`targetModel${n}`}
                    autoComplete="off"
                    spellCheck={false}
                    value={target.model}
                    onChange={(e) => setTarget(index, { model: e.target.value })}
                  />
                )}
              </Field>
            </div>
            {targets.length > 1 ? (
              <Button variant="secondary" aria-label={`Убрать провайдера ${n}`} onClick={() => setTargets((list) => list.filter((_, i) => i !== index))}>
                Убрать
              </Button>
            ) : null}
          </fieldset>
        );
      })}
      {shown.targets ? (
        <p className="error" role="alert">
          Провайдеры маршрута: {shown.targets}
        </p>
      ) : null}
      <div className="actions">
        <Button variant="secondary" onClick={() => setTargets((list) => [...list, { ...blank(), priority: String(list.length) }])}>
          Добавить провайдера в маршрут
        </Button>
        <Button type="submit" pending={save.isPending} pendingText="Сохраняем…">
          Сохранить маршрут
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

export function RoutesScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const routes = useQuery(trpc.admin.listRoutes.queryOptions());
  const providers = useQuery(trpc.admin.listProviders.queryOptions());
  const [editing, setEditing] = useState<Route | null>(null);
  const [deleting, setDeleting] = useState<Route | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const remove = useMutation(trpc.admin.deleteRoute.mutationOptions());
  const rows = routes.data?.routes ?? [];
  const providerList = providers.data?.data ?? [];
  const nameOf = (id: string) => providerList.find((p) => p.id === id)?.name ?? id;

  const onDelete = async () => {
    if (!deleting) return;
    const result = await answerOf(remove.mutateAsync({ pattern: deleting.pattern }));
    if (!result) return;
    setMessage(`${result.message}: ${deleting.pattern}`);
    if (editing?.pattern === deleting.pattern) setEditing(null);
    setDeleting(null);
    void queryClient.invalidateQueries({ queryKey: trpc.admin.listRoutes.pathKey() });
  };

  return (
    <>
      <section className="card" aria-labelledby="routes-title" data-testid="admin-routes">
        <div className="section-head">
          <h2 id="routes-title">Маршруты</h2>
          <Button variant="secondary" onClick={() => void routes.refetch()} disabled={routes.isFetching} aria-label="Обновить список маршрутов">
            Обновить
          </Button>
        </div>
        <p className="hint">
          Для модели берётся маршрут с самым длинным подходящим шаблоном; модели без маршрута идут к провайдеру default. Провайдеры пробуются по возрастанию
          приоритета, среди равных — по весу; при сбое, тайм-ауте, 408, 429 или 5xx запрос уходит к следующему.
        </p>
        {message ? (
          <p className="success" role="status">
            {message}
          </p>
        ) : null}
        <AdminError error={apiError(routes.error) ?? apiError(providers.error)} />
        {routes.isPending ? <Loading text="Загружаем маршруты…" /> : null}
        {routes.data && rows.length === 0 ? <p className="muted">Маршрутов нет: все модели идут к провайдеру default.</p> : null}
        {rows.length > 0 ? (
          <div className="table-wrap">
            <table className="stack-table" data-testid="routes-table">
              <thead>
                <tr>
                  <th scope="col">Шаблон</th>
                  <th scope="col">Провайдеры по порядку</th>
                  <th scope="col">Изменён</th>
                  <th scope="col">
                    <span className="visually-hidden">Действия</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.pattern} data-pattern={row.pattern} className={editing?.pattern === row.pattern ? 'row-open' : undefined}>
                    <td data-label="Шаблон" className="wrap-anywhere">
                      <code>{row.pattern}</code>
                    </td>
                    <td data-label="Провайдеры" className="wrap-anywhere">
                      <ol className="route-targets">
                        {inOrder(row.targets).map((t, i) => (
                          <li key={i} data-provider-id={t.providerId}>
                            <strong>{nameOf(t.providerId)}</strong> — приоритет {t.priority}, вес {t.weight}
                            {t.model ? (
                              <>
                                , модель <code>{t.model}</code>
                              </>
                            ) : null}
                          </li>
                        ))}
                      </ol>
                    </td>
                    <td data-label="Изменён">{formatDateTime(row.updatedAt)}</td>
                    <td>
                      <div className="row-actions">
                        <Button
                          variant="secondary"
                          aria-label={`Изменить маршрут ${row.pattern}`}
                          onClick={() => {
                            setMessage(null);
                            setEditing(row);
                          }}
                        >
                          Изменить
                        </Button>
                        <Button
                          variant="danger"
                          aria-label={`Удалить маршрут ${row.pattern}`}
                          onClick={() => {
                            remove.reset();
                            setDeleting(row);
                          }}
                        >
                          Удалить
                        </Button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}

        <div className="tool">
          {providers.data ? (
            <RouteForm
              key={editing?.pattern ?? '+new'}
              editing={editing}
              providers={providerList}
              onCancel={() => setEditing(null)}
              onSaved={(row, created) => {
                setMessage(`Маршрут ${row.pattern} ${created ? 'добавлен' : 'сохранён'}`);
                setEditing(null);
                void queryClient.invalidateQueries({ queryKey: trpc.admin.listRoutes.pathKey() });
              }}
            />
          ) : null}
        </div>
      </section>

      <ConfirmDialog
        open={deleting !== null}
        title="Удалить маршрут?"
        confirmText="Удалить"
        pending={remove.isPending}
        error={apiError(remove.error)}
        onConfirm={onDelete}
        onCancel={() => setDeleting(null)}
      >
        <p>Маршрут «{deleting?.pattern}» будет удалён: подходящие модели пойдут по более короткому шаблону или к провайдеру default.</p>
      </ConfirmDialog>
    </>
  );
}
