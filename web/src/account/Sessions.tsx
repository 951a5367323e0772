// The account's sessions list: where the account is signed in (device, address, when started and last
// used), «Завершить» for one, «Завершить все, кроме этой» for the rest. GET /api/auth/sessions.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Outputs } from '../app/api';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { formatDateTime } from '../shared/format';
import { Button, ConfirmDialog, ErrorText, Loading } from '../shared/ui';

type Session = Outputs['sessions']['list']['sessions'][number];

export function SessionList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.sessions.list.queryOptions());
  const end = useMutation(trpc.sessions.end.mutationOptions());
  const endOthers = useMutation(trpc.sessions.endOthers.mutationOptions());
  const [ending, setEnding] = useState<Session | null>(null);
  const [endingOthers, setEndingOthers] = useState(false);
  const [done, setDone] = useState<string | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.sessions.list.queryKey() });

  const onEnd = async () => {
    if (!ending) return;
    const result = await answerOf(end.mutateAsync({ id: ending.id }));
    if (!result) return;
    setEnding(null);
    setDone(result.message);
    await refresh();
  };

  const onEndOthers = async () => {
    const result = await answerOf(endOthers.mutateAsync());
    if (!result) return;
    setEndingOthers(false);
    setDone(result.message);
    await refresh();
  };

  if (list.isPending) return <Loading />;
  if (list.error) return <ErrorText error={apiError(list.error)} />;
  const sessions = list.data.sessions;
  const others = sessions.filter((session) => !session.current);
  return (
    <>
      <ul className="session-list" aria-label="Сеансы входа">
        {sessions.map((session) => (
          <li key={session.id} data-testid="session">
            <div className="session-facts">
              <span className="session-device">
                {session.device} {session.current ? <span className="badge badge-ok">Этот сеанс</span> : null}
              </span>
              <span className="muted">Адрес: {session.address}</span>
              <span className="muted">Вход: {formatDateTime(session.createdAt)}</span>
              <span className="muted">Последнее действие: {formatDateTime(session.lastUsedAt)}</span>
            </div>
            {session.current ? null : (
              <Button variant="secondary" onClick={() => setEnding(session)} aria-label={`Завершить сеанс: ${session.device}, ${session.address}`}>
                Завершить
              </Button>
            )}
          </li>
        ))}
      </ul>
      <div className="actions">
        {others.length > 0 ? (
          <Button variant="secondary" onClick={() => setEndingOthers(true)}>
            Завершить все, кроме этой
          </Button>
        ) : (
          <span className="muted">Других сеансов нет.</span>
        )}
        {done ? (
          <span className="success" role="status">
            {done}
          </span>
        ) : null}
      </div>
      <ConfirmDialog
        open={ending !== null}
        title="Завершить сеанс?"
        confirmText="Завершить"
        pending={end.isPending}
        error={apiError(end.error)}
        onConfirm={onEnd}
        onCancel={() => setEnding(null)}
      >
        <p>
          {ending?.device}, адрес {ending?.address}: на этом устройстве придётся войти заново.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={endingOthers}
        title="Завершить все сеансы, кроме этого?"
        confirmText="Завершить остальные"
        pending={endOthers.isPending}
        error={apiError(endOthers.error)}
        onConfirm={onEndOthers}
        onCancel={() => setEndingOthers(false)}
      >
        <p>На всех других устройствах придётся войти заново. Здесь вы останетесь в панели.</p>
      </ConfirmDialog>
    </>
  );
}
