// API keys: create (the full key shown once, with its warning and a copy button), list with last use,
// revoke after a confirmation.
import { useRef, useState, type FormEvent } from 'react';
import { createKeyInput } from '../../../src/trpc/routers/keys-input';
import { api, type Outputs } from '../api';
import { Button, ConfirmDialog, CopyValue, ErrorText, Field, Loading } from '../components/ui';
import { formatDateTime } from '../format';
import { useAction, useQuery } from '../hooks';
import { check, type FieldErrors } from '../validate';

type CreatedKey = Outputs['keys']['create'];
type ListedKey = Outputs['keys']['list']['keys'][number];

export function KeysScreen() {
  const keys = useQuery(() => api.keys.list.query(), []);
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ListedKey | null>(null);
  const [revokedMessage, setRevokedMessage] = useState<string | null>(null);
  const create = useAction((input: { name: string }) => api.keys.create.mutate(input));
  const revoke = useAction((id: string) => api.keys.revoke.mutate({ id }));
  const nameInput = useRef<HTMLInputElement>(null);

  const onCreate = async (event: FormEvent) => {
    event.preventDefault();
    const checked = check(createKeyInput, { name });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    setRevokedMessage(null);
    const result = await create.run(checked.data);
    if (!result) return;
    setCreated(result);
    setName('');
    keys.reload();
  };

  const onRevoke = async () => {
    if (!revoking) return;
    const result = await revoke.run(revoking.id);
    if (!result) return;
    setRevokedMessage(`${result.message}: «${revoking.name}»`);
    setRevoking(null);
    keys.reload();
  };

  return (
    <>
      <div className="page-head">
        <h1>API-ключи</h1>
      </div>

      <section className="card" aria-labelledby="new-key-title">
        <h2 id="new-key-title">Новый ключ</h2>
        <form onSubmit={onCreate} noValidate className="inline-form">
          <Field label="Название" hint="Например, «Сайт» или «Бот поддержки»" error={errors.name}>
            {(props) => <input {...props} ref={nameInput} name="keyName" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <div className="actions">
            <Button type="submit" pending={create.pending} pendingText="Создаём…">
              Создать ключ
            </Button>
          </div>
        </form>
        <ErrorText error={create.error} />

        {created ? (
          <div className="created-key" role="region" aria-label="Новый ключ" data-testid="created-key">
            <p className="warning" role="alert">
              {created.warning}
            </p>
            <CopyValue value={created.key} label="Полный ключ" testId="new-key-value" />
            <p className="muted">
              Ключ «{created.name}» создан {formatDateTime(created.createdAt)}. Передавайте его в заголовке <code>Authorization: Bearer …</code>{' '}
              при запросах к <code>/v1/chat/completions</code>.
            </p>
            <Button
              variant="secondary"
              onClick={() => {
                setCreated(null);
                nameInput.current?.focus();
              }}
            >
              Я сохранил ключ, скрыть
            </Button>
          </div>
        ) : null}
      </section>

      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Ваши ключи</h2>
        {revokedMessage ? (
          <p className="success" role="status">
            {revokedMessage}
          </p>
        ) : null}
        <ErrorText error={keys.error} />
        {keys.loading && !keys.data ? <Loading /> : null}
        {keys.data && keys.data.keys.length === 0 ? <p className="muted">Ключей пока нет.</p> : null}
        {keys.data && keys.data.keys.length > 0 ? (
          <div className="table-wrap">
            <table data-testid="keys-table">
              <thead>
                <tr>
                  <th scope="col">Название</th>
                  <th scope="col">Начало ключа</th>
                  <th scope="col">Создан</th>
                  <th scope="col">Последнее использование</th>
                  <th scope="col">Состояние</th>
                  <th scope="col">
                    <span className="visually-hidden">Действия</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.keys.map((key) => (
                  <tr key={key.id} data-key-id={key.id}>
                    <td>{key.name}</td>
                    <td>
                      <code>{key.keyPrefix}…</code>
                    </td>
                    <td>{formatDateTime(key.createdAt)}</td>
                    <td data-testid="last-used">{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : 'ещё не использовался'}</td>
                    <td>
                      <span className={`badge ${key.isActive ? 'badge-ok' : 'badge-off'}`}>{key.isActive ? 'Активен' : 'Отозван'}</span>
                    </td>
                    <td>
                      {key.isActive ? (
                        <Button
                          variant="danger"
                          aria-label={`Отозвать ключ «${key.name}»`}
                          onClick={() => {
                            revoke.fail(undefined);
                            setRevoking(key);
                          }}
                        >
                          Отозвать
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>

      <ConfirmDialog
        open={revoking !== null}
        title="Отозвать ключ?"
        confirmText="Отозвать"
        pending={revoke.pending}
        error={revoke.error}
        onConfirm={onRevoke}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Ключ «{revoking?.name}» ({revoking?.keyPrefix}…) перестанет работать сразу: запросы с ним получат ошибку 403. Отменить это
          нельзя.
        </p>
      </ConfirmDialog>
    </>
  );
}
