// One dialogue: the client, who answers them now, the transcript (newest at the bottom, older pages on
// request), takeover and release, the reply box and deletion. The newest page is polled; a reply carries
// an id made once per draft, so a retry after a lost answer is not sent to the client twice.
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { api } from '../api';
import { Button, ConfirmDialog, ErrorText, Loading } from '../components/ui';
import { formatAmount, formatDateTime } from '../format';
import { useAction } from '../hooks';
import { authorLabels, clientLabel, inboxTexts as t, stateLabels, type DialogueItem, type Turn } from './texts';
import { usePolling } from './usePolling';

const PAGE = 50;

function newDraftId(): string {
  return crypto.randomUUID();
}

function TurnRow({ turn, currency }: { turn: Turn; currency: string | undefined }) {
  const who =
    turn.author === 'operator' && turn.operatorName
      ? `${authorLabels.operator}: ${turn.operatorName}`
      : turn.author === 'tool' && turn.toolName
        ? `${authorLabels.tool}: ${turn.toolName}`
        : authorLabels[turn.author];
  return (
    <li className={`turn turn-${turn.author}`} data-testid="turn" data-author={turn.author}>
      <div className="turn-meta">
        <strong>{who}</strong> <time dateTime={turn.at}>{formatDateTime(turn.at)}</time>
      </div>
      <p className="turn-text">{turn.text}</p>
      {turn.model ? (
        <p className="turn-cost">
          {turn.model} · {t.tokens(turn.promptTokens ?? 0, turn.completionTokens ?? 0)} · {formatAmount(turn.cost ?? 0, currency)}
        </p>
      ) : null}
    </li>
  );
}

export function Transcript({ agentId, dialogueId, onChanged, onDeleted }: { agentId: string; dialogueId: string; onChanged(): void; onDeleted(): void }) {
  const head = usePolling(() => api.dialogues.get.query({ agentId, dialogueId }), [agentId, dialogueId]);
  const latest = usePolling(() => api.dialogues.messages.query({ agentId, dialogueId, limit: PAGE }), [agentId, dialogueId]);
  const [older, setOlder] = useState<Turn[]>([]);
  const [olderCursor, setOlderCursor] = useState<string | null | undefined>(undefined);
  const loadOlder = useAction((cursor: string) => api.dialogues.messages.query({ agentId, dialogueId, limit: PAGE, cursor }));
  const [text, setText] = useState('');
  const draftId = useRef(newDraftId());
  const send = useAction((input: { text: string; clientMessageId: string }) => api.dialogues.reply.mutate({ agentId, dialogueId, ...input }));
  const takeover = useAction(() => api.dialogues.takeover.mutate({ agentId, dialogueId }));
  const release = useAction(() => api.dialogues.release.mutate({ agentId, dialogueId }));
  const read = useAction(() => api.dialogues.read.mutate({ agentId, dialogueId }));
  const remove = useAction(() => api.dialogues.remove.mutate({ agentId, dialogueId }));
  const [confirmDelete, setConfirmDelete] = useState(false);
  const bottom = useRef<HTMLDivElement>(null);

  useEffect(() => {
    setOlder([]);
    setOlderCursor(undefined);
    setText('');
    draftId.current = newDraftId();
  }, [dialogueId]);

  // Oldest first on screen; the polled newest page and the pages loaded before it, each turn once.
  const turns = useMemo(() => {
    const byId = new Map<number, Turn>();
    for (const turn of [...older, ...(latest.data?.messages ?? [])]) byId.set(turn.id, turn);
    return [...byId.values()].sort((a, b) => a.id - b.id);
  }, [older, latest.data]);
  const newestId = turns.at(-1)?.id;
  const nextOlder = olderCursor === undefined ? latest.data?.nextCursor : olderCursor;

  const dialogue: DialogueItem | undefined = head.data;
  // A client turn the owner has not seen: it is seen now.
  useEffect(() => {
    if (dialogue && dialogue.unread > 0) void read.run().then((d) => d && onChanged());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [dialogue?.unread, newestId]);
  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'nearest' });
  }, [newestId]);

  const after = () => {
    head.refresh();
    latest.refresh();
    onChanged();
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const body = text.trim();
    if (!body) {
      send.fail({ message: 'Напишите текст ответа', type: 'invalid_request_error' });
      return;
    }
    const sent = await send.run({ text: body, clientMessageId: draftId.current });
    if (!sent) return; // the same id is sent again with the next try
    setText('');
    draftId.current = newDraftId();
    after();
  };

  if (!dialogue) {
    return (
      <section className="card transcript" aria-label="Переписка">
        {head.loading ? <Loading /> : null}
        <ErrorText error={head.error} />
      </section>
    );
  }

  const holder = dialogue.heldBy;
  return (
    <section className="card transcript" aria-labelledby="transcript-title">
      <div className="section-head">
        <h2 id="transcript-title">{clientLabel(dialogue.client)}</h2>
        <span className={`badge state-${dialogue.state}`} data-testid="dialogue-state">
          {stateLabels[dialogue.state]}
        </span>
      </div>
      <p className="muted client-facts">
        {dialogue.client.vkUserId !== null ? (
          <a href={`https://vk.com/id${dialogue.client.vkUserId}`} target="_blank" rel="noreferrer">
            vk.com/id{dialogue.client.vkUserId}
          </a>
        ) : null}
        {dialogue.client.phone ? (
          <span>
            {' '}
            · {t.phone}: {dialogue.client.phone}
          </span>
        ) : null}
      </p>
      <p className="hint" data-testid="holder">
        {dialogue.state === 'closed'
          ? t.closedHint
          : holder
            ? holder.byYou
              ? t.heldByYou
              : t.heldBy(holder.name)
            : dialogue.state === 'escalated'
              ? t.escalatedHint
              : null}
      </p>
      <div className="row-actions transcript-actions">
        {dialogue.state !== 'operator' || !holder?.byYou ? (
          <Button variant="secondary" pending={takeover.pending} disabled={dialogue.state === 'closed'} onClick={async () => (await takeover.run()) && after()}>
            {t.takeover}
          </Button>
        ) : null}
        {dialogue.state === 'operator' || dialogue.state === 'escalated' ? (
          <Button variant="secondary" pending={release.pending} onClick={async () => (await release.run()) && after()}>
            {t.release}
          </Button>
        ) : null}
      </div>
      <ErrorText error={takeover.error ?? release.error} />

      {nextOlder ? (
        <Button
          variant="secondary"
          pending={loadOlder.pending}
          onClick={async () => {
            const page = await loadOlder.run(nextOlder);
            if (!page) return;
            setOlder((o) => [...page.messages, ...o]);
            setOlderCursor(page.nextCursor);
          }}
        >
          {t.earlier}
        </Button>
      ) : null}
      <ErrorText error={loadOlder.error ?? latest.error} />
      {latest.loading && !latest.data ? <Loading /> : null}
      {latest.data && turns.length === 0 ? <p className="muted">{t.noTurns}</p> : null}
      <ol className="turns" aria-live="polite" data-testid="turns">
        {turns.map((turn) => (
          <TurnRow key={turn.id} turn={turn} currency={latest.data?.currency} />
        ))}
      </ol>
      <div ref={bottom} />

      <form className="reply" onSubmit={onSubmit} noValidate>
        <label htmlFor="reply-text" className="label">
          {t.reply}
        </label>
        <textarea
          id="reply-text"
          name="reply"
          rows={3}
          maxLength={4000}
          value={text}
          disabled={dialogue.state === 'closed'}
          aria-describedby="reply-hint"
          onChange={(e) => setText(e.target.value)}
        />
        <p className="hint" id="reply-hint">
          {t.replyHint}
        </p>
        <div className="row-actions">
          <Button type="submit" pending={send.pending} pendingText={t.sending} disabled={dialogue.state === 'closed'}>
            {t.send}
          </Button>
        </div>
        <ErrorText error={send.error} />
      </form>

      <div className="row-actions delete-dialogue">
        <Button variant="danger" onClick={() => setConfirmDelete(true)}>
          {t.delete}
        </Button>
      </div>
      <ConfirmDialog
        open={confirmDelete}
        title={t.deleteTitle}
        confirmText="Удалить"
        pending={remove.pending}
        error={remove.error}
        onCancel={() => setConfirmDelete(false)}
        onConfirm={async () => {
          if (await remove.run()) {
            setConfirmDelete(false);
            onDeleted();
          }
        }}
      >
        <p>{t.deleteText}</p>
      </ConfirmDialog>
    </section>
  );
}
