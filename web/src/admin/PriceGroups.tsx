// «Группы цен» (issue 45): every account pays by its group — the list prices × the group's multiplier, or the
// group's own price for some models, and only the group's models when it lists them. Here the operator
// adds and changes groups, names the default for new accounts, deletes a group nobody is in, and sets a
// group's own prices. Accounts are moved on their card (UserPriceGroup below).
import './admin.css';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { createPriceGroupInput, putGroupPriceInput, updatePriceGroupInput } from '@server/admin/price-groups-input';
import type { Outputs } from '../app/api';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useBillingConfig } from '../shared/billing-config';
import { formatInt } from '../shared/format';
import { Button, ConfirmDialog, Field, Loading } from '../shared/ui';
import { check, decimalInput, decimalText, type FieldErrors } from '../shared/validate';
import { AdminError } from './AdminError';
import { PriceRowFields, PriceRowsTable, priceValues, usePriceDraft } from './PriceRowFields';
import { RowActions, useConfirmedDelete } from './RowActions';

type Group = Outputs['adminPriceGroups']['list']['groups'][number];

/** The allowed list as the form's text: one id or prefix a line; none — every model. */
const modelsText = (list: readonly string[] | null) => (list ?? []).join('\n');
const modelsOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

function GroupForm({ editing, onSaved, onCancel }: { editing: Group | null; onSaved(group: Group, created: boolean): void; onCancel(): void }) {
  const trpc = useTRPC();
  const create = useMutation(trpc.adminPriceGroups.create.mutationOptions());
  const update = useMutation(trpc.adminPriceGroups.update.mutationOptions());
  const [name, setName] = useState(editing?.name ?? '');
  const [title, setTitle] = useState(editing?.title ?? '');
  const [multiplier, setMultiplier] = useState(editing ? decimalText(editing.multiplier) : '1');
  const [models, setModels] = useState(modelsText(editing?.allowedModels ?? null));
  const [isDefault, setIsDefault] = useState(editing?.isDefault ?? false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const pending = create.isPending || update.isPending;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const allowed = modelsOf(models);
    const values = { name, title, multiplier: decimalInput(multiplier), allowedModels: allowed.length > 0 ? allowed : null };
    if (editing) {
      const sent = { ...values, name: editing.name, ...(isDefault && !editing.isDefault ? { isDefault: true as const } : {}) };
      const checked = check(updatePriceGroupInput, sent);
      if (!checked.ok) return setErrors(checked.errors);
      setErrors({});
      const saved = await answerOf(update.mutateAsync(sent));
      if (saved) onSaved(saved, false);
      return;
    }
    const sent = { ...values, isDefault };
    const checked = check(createPriceGroupInput, sent);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    const saved = await answerOf(create.mutateAsync(sent));
    if (!saved) return;
    onSaved(saved, true);
    setName('');
    setTitle('');
    setMultiplier('1');
    setModels('');
    setIsDefault(false);
  };

  return (
    <form onSubmit={onSubmit} noValidate data-testid="price-group-form" aria-label={editing ? `Изменить группу ${editing.name}` : 'Новая группа цен'}>
      <h3>{editing ? `Группа «${editing.title}»` : 'Новая группа цен'}</h3>
      <div className="grid">
        <Field label="Имя группы" hint={editing ? 'Имя не меняется' : 'Латиница, цифры, «-» и «_»: vip, partners-2026'} error={errors.name}>
          {(props) => <input {...props} name="groupName" value={name} readOnly={Boolean(editing)} onChange={(e) => setName(e.target.value)} spellCheck={false} />}
        </Field>
        <Field label="Название группы" error={errors.title}>
          {(props) => <input {...props} name="groupTitle" value={title} onChange={(e) => setTitle(e.target.value)} />}
        </Field>
        <Field label="Множитель" hint="Цены прайс-листа × множитель: 1 — как в прайс-листе, 0,8 — скидка 20 %" error={errors.multiplier}>
          {(props) => <input {...props} name="groupMultiplier" inputMode="decimal" value={multiplier} onChange={(e) => setMultiplier(e.target.value)} />}
        </Field>
        <Field label="Доступные модели" hint="По одной на строке: openai/gpt-4o-mini или openai/*. Пусто — все модели" error={errors.allowedModels}>
          {(props) => <textarea {...props} name="groupModels" rows={3} value={models} onChange={(e) => setModels(e.target.value)} spellCheck={false} />}
        </Field>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={isDefault} disabled={editing?.isDefault ?? false} onChange={(e) => setIsDefault(e.target.checked)} /> Группа по умолчанию для
        новых пользователей
      </label>
      <div className="actions">
        <Button type="submit" pending={pending} pendingText="Сохраняем…">
          {editing ? 'Сохранить группу' : 'Добавить группу'}
        </Button>
        {editing ? (
          <Button variant="secondary" onClick={onCancel} disabled={pending}>
            Отмена
          </Button>
        ) : null}
      </div>
      <AdminError error={apiError(create.error ?? update.error)} />
    </form>
  );
}

/** The group's own prices: a row replaces list price × multiplier for the models its pattern covers. */
function GroupPrices({ group, currency, onChanged }: { group: Group; currency: string | undefined; onChanged(message: string): void }) {
  const trpc = useTRPC();
  const put = useMutation(trpc.adminPriceGroups.putPrice.mutationOptions());
  const remove = useMutation(trpc.adminPriceGroups.removePrice.mutationOptions());
  // Per token only here: the form offers no other kind.
  const { draft, set, reset } = usePriceDraft(null);
  const [errors, setErrors] = useState<FieldErrors>({});

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const sent = { name: group.name, ...priceValues(draft, false) };
    const checked = check(putGroupPriceInput, sent);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    const saved = await answerOf(put.mutateAsync(sent));
    if (!saved) return;
    reset();
    onChanged(`Цена группы «${group.title}» для ${saved.pattern} сохранена`);
  };

  const onRemove = async (row: string) => {
    const done = await answerOf(remove.mutateAsync({ name: group.name, pattern: row }));
    if (done) onChanged(done.message);
  };

  return (
    <div className="tool" data-testid="group-prices">
      <h3>Свои цены группы «{group.title}»</h3>
      {group.prices.length === 0 ? <p className="muted">Своих цен нет: все модели стоят по прайс-листу × {decimalText(group.multiplier)}.</p> : null}
      {group.prices.length > 0 ? (
        <PriceRowsTable
          rows={group.prices}
          currency={currency}
          actions={(row) => <RowActions subject={`цену группы ${row.pattern}`} deletePending={remove.isPending} onDelete={() => void onRemove(row.pattern)} />}
        />
      ) : null}
      <form onSubmit={onSubmit} noValidate aria-label={`Своя цена группы ${group.name}`}>
        <div className="grid">
          <PriceRowFields prefix="groupPrice" draft={draft} set={set} errors={errors} currency={currency} />
        </div>
        <div className="actions">
          <Button type="submit" pending={put.isPending} pendingText="Сохраняем…">
            Сохранить цену группы
          </Button>
        </div>
        <AdminError error={apiError(put.error ?? remove.error)} />
      </form>
    </div>
  );
}

export function PriceGroupsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const groups = useQuery(trpc.adminPriceGroups.list.queryOptions());
  const currency = useBillingConfig().data?.currency;
  const [editing, setEditing] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const remove = useMutation(trpc.adminPriceGroups.remove.mutationOptions());
  const rows = groups.data?.groups ?? [];
  const open = rows.find((g) => g.name === editing) ?? null;
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.adminPriceGroups.pathKey() });
  const deleting = useConfirmedDelete(
    remove,
    (group: Group) => ({ name: group.name }),
    (group, done) => {
      setMessage(`${done}: ${group.name}`);
      if (editing === group.name) setEditing(null);
      refresh();
    },
  );

  return (
    <>
      <section className="card" aria-labelledby="groups-title" data-testid="admin-price-groups">
        <h2 id="groups-title">Группы цен</h2>
        <p className="hint">
          Каждый пользователь платит по своей группе: цена прайс-листа × множитель группы, или своя цена группы для отдельных моделей. Если у группы указаны доступные
          модели, остальные её пользователям недоступны. Новые пользователи попадают в группу по умолчанию; перевести пользователя можно в его карточке.
        </p>
        {message ? (
          <p className="success" role="status">
            {message}
          </p>
        ) : null}
        <AdminError error={apiError(groups.error)} />
        {groups.isPending ? <Loading /> : null}
        {rows.length > 0 ? (
          <div className="table-wrap">
            <table className="stack-table" data-testid="price-groups-table">
              <thead>
                <tr>
                  <th scope="col">Группа</th>
                  <th scope="col" className="num">
                    Множитель
                  </th>
                  <th scope="col">Модели</th>
                  <th scope="col" className="num">
                    Пользователей
                  </th>
                  <th scope="col" className="num">
                    Своих цен
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">Действия</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((g) => (
                  <tr key={g.name} data-group={g.name} className={editing === g.name ? 'row-open' : undefined}>
                    <td data-label="Группа">
                      <strong>{g.title}</strong> <code>{g.name}</code> {g.isDefault ? <span className="badge badge-ok">По умолчанию</span> : null}
                    </td>
                    <td data-label="Множитель" className="num">
                      × {decimalText(g.multiplier)}
                    </td>
                    <td data-label="Модели" className="wrap-anywhere">
                      {g.allowedModels ? g.allowedModels.join(', ') : 'все'}
                    </td>
                    <td data-label="Пользователей" className="num">
                      {formatInt(g.users)}
                    </td>
                    <td data-label="Своих цен" className="num">
                      {formatInt(g.prices.length)}
                    </td>
                    <td>
                      <RowActions
                        subject={`группу ${g.name}`}
                        onEdit={() => {
                          setMessage(null);
                          setEditing(g.name);
                        }}
                        onDelete={() => deleting.ask(g)}
                        deleteDisabled={g.isDefault || g.users > 0}
                        deleteTitle={
                          g.isDefault ? 'Группу по умолчанию удалить нельзя' : g.users > 0 ? 'Сначала переведите пользователей в другую группу' : undefined
                        }
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        <div className="tool">
          <GroupForm
            key={open?.name ?? '+new'}
            editing={open}
            onCancel={() => setEditing(null)}
            onSaved={(group, created) => {
              setMessage(`Группа «${group.title}» ${created ? 'добавлена' : 'сохранена'}`);
              if (created) setEditing(group.name);
              refresh();
            }}
          />
        </div>
        {open ? (
          <GroupPrices
            group={open}
            currency={currency}
            onChanged={(text) => {
              setMessage(text);
              refresh();
            }}
          />
        ) : null}
      </section>
      <ConfirmDialog {...deleting.dialog} title="Удалить группу цен?">
        <p>Группа «{deleting.asking?.title}» и её собственные цены будут удалены.</p>
      </ConfirmDialog>
    </>
  );
}

/** The account's group on its card, and a move to another: from the account's next request. */
export function UserPriceGroup({ userId, current, onMoved }: { userId: string; current: string; onMoved(): void }) {
  const trpc = useTRPC();
  const groups = useQuery(trpc.adminPriceGroups.list.queryOptions());
  const move = useMutation(trpc.adminPriceGroups.moveUser.mutationOptions());
  const [chosen, setChosen] = useState(current);
  const [message, setMessage] = useState<string | null>(null);
  // The card reloads after a move: the choice follows the account's group and «Переведён…» stays. (Remounted
  // on the group's change instead, the form lost that message as soon as the card came back, often before anyone saw it.)
  useEffect(() => setChosen(current), [current]);
  const list = groups.data?.groups ?? [];
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setMessage(null);
    const done = await answerOf(move.mutateAsync({ id: userId, group: chosen }));
    if (!done) return;
    setMessage(`Переведён в группу «${list.find((g) => g.name === done.priceGroup)?.title ?? done.priceGroup}»`);
    onMoved();
  };
  return (
    <form className="actions" onSubmit={onSubmit} aria-label="Группа цен пользователя" data-testid="user-price-group">
      <Field label="Группа цен">
        {(props) => (
          <select {...props} name="priceGroup" value={chosen} onChange={(e) => setChosen(e.target.value)}>
            {list.length === 0 ? <option value={current}>{current}</option> : null}
            {list.map((g) => (
              <option key={g.name} value={g.name}>
                {g.title} ({g.name}, × {decimalText(g.multiplier)})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Button type="submit" variant="secondary" pending={move.isPending} pendingText="Переводим…" disabled={chosen === current}>
        Перевести
      </Button>
      {message ? (
        <span className="success" role="status">
          {message}
        </span>
      ) : null}
      <AdminError error={apiError(move.error)} />
    </form>
  );
}
