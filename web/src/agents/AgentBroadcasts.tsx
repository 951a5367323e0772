// «Рассылки» on the agent's page: the owner writes a message for the agent's VK clients, sees it exactly as
// they will (with its «Отписаться» button) and how many clients get it, sends it, and follows each one's
// delivered / not delivered counts, refreshed while messages are still queued.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { BROADCAST_MAX_CHARS, broadcastPreviewInput } from '@server/integrations/social/broadcast-input';
import type { Outputs } from '../app/api';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { formatDateTime, formatInt } from '../shared/format';
import { Button, ErrorText, Field, Loading } from '../shared/ui';
import { check } from '../shared/validate';
import { broadcastTexts as t } from './broadcast-texts';
import './broadcasts.css';

type Preview = Outputs['broadcasts']['preview'];
const REFRESH_MS = 2000;

function BroadcastList({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const list = useQuery(
    trpc.broadcasts.list.queryOptions({ agentId }, { refetchInterval: (q) => (q.state.data?.broadcasts.some((b) => b.pending > 0) ? REFRESH_MS : false) }),
  );
  const rows = list.data?.broadcasts ?? [];
  return (
    <>
      <h3>{t.listTitle}</h3>
      <ErrorText error={apiError(list.error)} />
      {list.isPending ? <Loading /> : null}
      {list.data && rows.length === 0 ? <p className="muted">{t.empty}</p> : null}
      {rows.length > 0 ? (
        <table className="stack-table broadcast-list" data-testid="broadcasts">
          <thead>
            <tr>
              <th>{t.when}</th>
              <th>{t.message}</th>
              <th className="num">{t.queued}</th>
              <th className="num">{t.delivered}</th>
              <th className="num">{t.failed}</th>
              <th className="num">{t.pending}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((b) => (
              <tr key={b.id} data-testid="broadcast" data-broadcast-id={b.id}>
                <td data-label={t.when}>{formatDateTime(b.createdAt)}</td>
                <td data-label={t.message} className="broadcast-text-cell">
                  {b.text}
                  {b.skipped > 0 ? (
                    <span className="hint">
                      {' '}
                      {t.skipped}: {formatInt(b.skipped)}
                    </span>
                  ) : null}
                </td>
                <td data-label={t.queued} className="num">
                  {formatInt(b.recipients)}
                </td>
                <td data-label={t.delivered} className="num" data-testid="broadcast-delivered">
                  {formatInt(b.delivered)}
                </td>
                <td data-label={t.failed} className="num" data-testid="broadcast-failed">
                  {formatInt(b.failed)}
                </td>
                <td data-label={t.pending} className="num">
                  {formatInt(b.pending)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

export function AgentBroadcasts({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.broadcasts.list.queryOptions({ agentId }));
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [preview, setPreview] = useState<(Preview & { requestId: string }) | null>(null);
  const [sent, setSent] = useState(false);
  const previewing = useMutation(trpc.broadcasts.preview.mutationOptions());
  const sending = useMutation(trpc.broadcasts.send.mutationOptions({ onSuccess: () => void list.refetch() }));

  const onPreview = async (event: FormEvent) => {
    event.preventDefault();
    setSent(false);
    const checked = check(broadcastPreviewInput, { agentId, text });
    if (!checked.ok) {
      setError(checked.errors.text ?? checked.message);
      return;
    }
    setError(undefined);
    const shown = await answerOf(previewing.mutateAsync(checked.data));
    // One id per previewed text: a retried «Отправить» is the same broadcast, never a second one.
    if (shown) setPreview({ ...shown, requestId: crypto.randomUUID() });
  };

  const onSend = async () => {
    if (!preview) return;
    const done = await answerOf(sending.mutateAsync({ agentId, text: preview.text, requestId: preview.requestId }));
    if (!done) return;
    setPreview(null);
    setText('');
    setSent(true);
  };

  return (
    <section className="card" aria-labelledby="broadcasts-title" data-testid="agent-broadcasts">
      <h2 id="broadcasts-title">{t.title}</h2>
      {list.data ? <p className="muted">{t.intro(formatInt(list.data.audience))}</p> : null}
      {preview ? (
        <div className="broadcast-preview" data-testid="broadcast-preview" aria-labelledby="broadcast-preview-title">
          <h3 id="broadcast-preview-title">{t.previewTitle}</h3>
          <div className="broadcast-bubble">
            <p className="broadcast-bubble-text" data-testid="broadcast-preview-text">
              {preview.text}
            </p>
            <span className="broadcast-bubble-button">{preview.button}</span>
          </div>
          <p data-testid="broadcast-recipients">{preview.recipients > 0 ? t.recipients(formatInt(preview.recipients)) : t.noRecipients}</p>
          <div className="actions">
            <Button onClick={() => void onSend()} pending={sending.isPending} pendingText={t.sending} disabled={preview.recipients === 0}>
              {t.send(t.clients(preview.recipients))}
            </Button>
            <Button variant="secondary" onClick={() => setPreview(null)} disabled={sending.isPending}>
              {t.edit}
            </Button>
          </div>
          <ErrorText error={apiError(sending.error)} />
        </div>
      ) : (
        <form onSubmit={onPreview} noValidate>
          <Field label={t.text} hint={t.textHint(BROADCAST_MAX_CHARS)} error={error ?? apiError(previewing.error)?.fields?.text}>
            {(props) => <textarea {...props} name="broadcastText" rows={5} value={text} onChange={(e) => setText(e.target.value)} />}
          </Field>
          <div className="actions">
            <Button type="submit" pending={previewing.isPending} pendingText={t.previewing}>
              {t.previewButton}
            </Button>
            {sent ? (
              <span className="success" role="status">
                {t.sent}
              </span>
            ) : null}
          </div>
          <ErrorText error={apiError(previewing.error)?.fields ? undefined : apiError(previewing.error)} />
        </form>
      )}
      <BroadcastList agentId={agentId} />
    </section>
  );
}
