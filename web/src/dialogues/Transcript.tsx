// One dialogue, filling the height it is given: its head (DialogueHeader.tsx), the transcript (newest at the
// bottom, older pages on request) scrolling inside, and the reply box always at the bottom — a reply to the
// client or an internal note the client never gets, quick replies picked into it. The newest page is
// polled; a reply carries an id made once per draft, so a retry after a lost answer is not sent twice.
// The transcript opens at its newest message and follows new ones while the reader is at the bottom; a
// reader scrolled up to older messages stays there and is offered «новые сообщения ↓» instead.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { flushSync } from 'react-dom';
import type { ApiError } from '../app/api';
import { answerOf, apiError, useTRPC, useTRPCClient } from '../app/trpc';
import { Button, ErrorText, Loading } from '../shared/ui';
import { formatDateTime, formatMoney } from '../shared/format';
import { authorLabels, inboxTexts as t, type DialogueItem, type Turn } from './texts';
import { toolName } from '../agents/tool-names';
import { polled } from './polling';
import { DialogueHeader } from './DialogueHeader';
import { QuickReplyPicker } from './QuickReplies';

const PAGE = 50;
/** Closer than this to the end of the list counts as reading the newest messages. */
const AT_BOTTOM_PX = 48;

function newDraftId(): string {
  return crypto.randomUUID();
}

function TurnRow({ turn, currency }: { turn: Turn; currency: string | undefined }) {
  const who =
    (turn.author === 'operator' || turn.author === 'note') && turn.operatorName
      ? `${authorLabels[turn.author]}: ${turn.operatorName}`
      : turn.author === 'tool' && turn.toolName
        ? `${authorLabels.tool}: ${toolName(turn.toolName).title}`
        : authorLabels[turn.author];
  return (
    <li className={`turn turn-${turn.author}${turn.unsent ? ' turn-unsent' : ''}`} data-testid="turn" data-author={turn.author}>
      <div className="turn-meta">
        <strong>{who}</strong> <time dateTime={turn.at}>{formatDateTime(turn.at)}</time>
      </div>
      {turn.tap ? (
        <p className="turn-text turn-tap">
          <span className="muted">{t.tapped}</span> <span className="turn-button">{turn.text}</span>
        </p>
      ) : (
        <p className="turn-text">{turn.text}</p>
      )}
      {turn.author === 'note' ? (
        <p className="note-mark" data-testid="note-mark">
          {t.noteMark}
        </p>
      ) : null}
      {turn.unsent ? (
        <p className="muted" data-testid="turn-unsent">
          {t.unsent}
        </p>
      ) : null}
      {turn.buttons && turn.buttons.length > 0 ? (
        <ul className="turn-buttons" aria-label={t.buttonsShown} data-testid="turn-buttons">
          {turn.buttons.map((row, r) => (
            <li key={r} className="turn-buttons-row">
              {row.map((label, i) => (
                <span key={i} className="turn-button">
                  {label}
                </span>
              ))}
            </li>
          ))}
        </ul>
      ) : null}
      {turn.model ? (
        <p className="turn-cost">
          {turn.model} · {t.tokens(turn.promptTokens ?? 0, turn.completionTokens ?? 0)}
          {turn.cachedTokens ? ` (${t.cachedTokens(turn.cachedTokens)})` : ''}
          {turn.reasoningTokens ? ` · ${t.reasoningTokens(turn.reasoningTokens)}` : ''} · {formatMoney(turn.cost ?? 0, currency, 'cost')}
        </p>
      ) : null}
    </li>
  );
}

type Mode = 'reply' | 'note';

export function Transcript({
  agentId,
  dialogueId,
  agentName,
  backTo,
  onChanged,
  onDeleted,
}: {
  agentId: string;
  dialogueId: string;
  /** The dialogue's agent, named when the inbox lists several. */
  agentName: string | undefined;
  /** The list's address (the phone's way back). */
  backTo: string;
  onChanged(): void;
  onDeleted(): void;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const head = useQuery(trpc.dialogues.get.queryOptions({ agentId, dialogueId }, polled));
  const latest = useQuery(trpc.dialogues.messages.queryOptions({ agentId, dialogueId, limit: PAGE }, polled));
  const [older, setOlder] = useState<Turn[]>([]);
  const [olderCursor, setOlderCursor] = useState<string | null | undefined>(undefined);
  // A page asked on request and kept beside the polled newest one, not a cached read of its own.
  const loadOlder = useMutation({ mutationFn: (cursor: string) => client.dialogues.messages.query({ agentId, dialogueId, limit: PAGE, cursor }) });
  const [text, setText] = useState('');
  const [mode, setMode] = useState<Mode>('reply');
  const draftId = useRef(newDraftId());
  const textRef = useRef<HTMLTextAreaElement>(null);
  const send = useMutation(trpc.dialogues.reply.mutationOptions());
  const note = useMutation(trpc.dialogues.note.mutationOptions());
  const [sendProblem, setSendProblem] = useState<ApiError | undefined>();
  const read = useMutation(trpc.dialogues.read.mutationOptions());
  const listRef = useRef<HTMLOListElement>(null);
  // Whether the reader is at the newest message (the list follows then), and what arrived while they were not.
  const atBottom = useRef(true);
  const [unseen, setUnseen] = useState(0);
  const shownNewest = useRef<number | undefined>(undefined);
  // The inbox passes a new function at each render; the mark-read answer calls the latest one.
  const onChangedRef = useRef(onChanged);
  useEffect(() => {
    onChangedRef.current = onChanged;
  });

  // Oldest first on screen; the polled newest page and the pages loaded before it, each turn once.
  const turns = useMemo(() => {
    const byId = new Map<number, Turn>();
    for (const turn of [...older, ...(latest.data?.messages ?? [])]) byId.set(turn.id, turn);
    return [...byId.values()].sort((a, b) => a.id - b.id);
  }, [older, latest.data]);
  const newestId = turns.at(-1)?.id;
  const nextOlder = olderCursor === undefined ? latest.data?.nextCursor : olderCursor;

  const dialogue: DialogueItem | undefined = head.data;
  const unread = dialogue?.unread ?? 0;
  const markRead = read.mutateAsync;
  // A client turn the owner has not seen: it is seen now.
  // biome-ignore lint/correctness/useExhaustiveDependencies(newestId): a turn that arrives while the mark is on its way leaves the polled count as it was; the newer turn marks again
  useEffect(() => {
    if (unread > 0) void answerOf(markRead({ agentId, dialogueId })).then((d) => d && onChangedRef.current());
  }, [unread, newestId, markRead, agentId, dialogueId]);
  const toBottom = useCallback(() => {
    const list = listRef.current;
    if (list) list.scrollTop = list.scrollHeight;
    atBottom.current = true;
    setUnseen(0);
  }, []);
  // Newer turns: followed at the bottom (and on opening), counted for the «новые сообщения» cue otherwise.
  // Only a new newest turn counts: older pages loaded above change the turns but not the newest one.
  useLayoutEffect(() => {
    if (newestId === undefined || newestId === shownNewest.current) return;
    const before = shownNewest.current;
    shownNewest.current = newestId;
    if (before === undefined || atBottom.current) toBottom();
    else if (newestId > before) setUnseen((n) => n + turns.filter((turn) => turn.id > before).length);
  }, [newestId, turns, toBottom]);
  const onScroll = () => {
    const list = listRef.current;
    if (!list) return;
    atBottom.current = list.scrollHeight - list.scrollTop - list.clientHeight < AT_BOTTOM_PX;
    if (atBottom.current) setUnseen(0);
  };

  const after = () => {
    void head.refetch();
    void latest.refetch();
    onChanged();
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const body = text.trim();
    if (!body) {
      send.reset();
      note.reset();
      setSendProblem({ message: mode === 'note' ? 'Напишите текст заметки' : 'Напишите текст ответа', type: 'invalid_request_error' });
      return;
    }
    setSendProblem(undefined);
    if (mode === 'note') {
      if (!(await answerOf(note.mutateAsync({ agentId, dialogueId, text: body })))) return;
      setText('');
    } else {
      const sent = await answerOf(send.mutateAsync({ agentId, dialogueId, text: body, clientMessageId: draftId.current }));
      if (!sent) return; // the same id is sent again with the next try
      setText('');
      draftId.current = newDraftId();
    }
    // One's own reply is followed down to, wherever the reader was.
    atBottom.current = true;
    after();
  };

  if (!dialogue) {
    return (
      <section className="card transcript" aria-label="Переписка">
        {head.isPending ? <Loading /> : null}
        <ErrorText error={apiError(head.error)} />
      </section>
    );
  }

  const closed = dialogue.state === 'closed';
  const noteMode = mode === 'note';
  return (
    <section className="card transcript" aria-labelledby="transcript-title">
      <DialogueHeader agentId={agentId} dialogueId={dialogueId} dialogue={dialogue} agentName={agentName} backTo={backTo} onChanged={after} onDeleted={onDeleted} />

      {nextOlder ? (
        <Button
          variant="secondary"
          pending={loadOlder.isPending}
          onClick={async () => {
            const page = await answerOf(loadOlder.mutateAsync(nextOlder));
            if (!page) return;
            const list = listRef.current;
            const saved = list && { height: list.scrollHeight, top: list.scrollTop };
            // Rendered at once, so the turns being read are put back where they were before the browser paints.
            flushSync(() => {
              setOlder((o) => [...page.messages, ...o]);
              setOlderCursor(page.nextCursor);
            });
            if (list && saved) list.scrollTop = saved.top + (list.scrollHeight - saved.height);
          }}
        >
          {t.earlier}
        </Button>
      ) : null}
      <ErrorText error={apiError(loadOlder.error ?? latest.error)} />
      {latest.isPending ? <Loading /> : null}
      {latest.data && turns.length === 0 ? <p className="muted">{t.noTurns}</p> : null}
      <div className="turns-frame">
        <ol className="turns" aria-live="polite" data-testid="turns" ref={listRef} onScroll={onScroll} tabIndex={0} aria-label={t.turnsLabel}>
          {turns.map((turn) => (
            <TurnRow key={turn.id} turn={turn} currency={latest.data?.currency} />
          ))}
        </ol>
        {unseen > 0 ? (
          <button type="button" className="btn btn-primary new-turns" onClick={toBottom} data-testid="new-turns">
            {t.newTurns(unseen)}
          </button>
        ) : null}
      </div>

      <form className={`reply${noteMode ? ' reply-note' : ''}`} onSubmit={onSubmit} noValidate>
        <div className="reply-modes" role="group" aria-label={t.replyMode}>
          {(['reply', 'note'] as const).map((m) => (
            <button
              key={m}
              type="button"
              className={`reply-mode${mode === m ? ' current' : ''}`}
              aria-pressed={mode === m}
              onClick={() => {
                setMode(m);
                setSendProblem(undefined);
                textRef.current?.focus();
              }}
            >
              {m === 'note' ? t.note : t.reply}
            </button>
          ))}
        </div>
        <label htmlFor="reply-text" className="visually-hidden">
          {noteMode ? t.noteLabel : t.reply}
        </label>
        <textarea
          id="reply-text"
          ref={textRef}
          name="reply"
          rows={2}
          maxLength={4000}
          value={text}
          disabled={closed && !noteMode}
          aria-describedby="reply-hint"
          onChange={(e) => setText(e.target.value)}
        />
        <div className="reply-bar">
          <QuickReplyPicker
            onPick={(picked) => {
              setMode('reply');
              setText((current) => (current.trim() ? `${current.trimEnd()}\n${picked}` : picked));
              textRef.current?.focus();
            }}
          />
          <p className="hint" id="reply-hint">
            {noteMode ? t.noteHint : t.replyHint}
          </p>
          <Button type="submit" pending={noteMode ? note.isPending : send.isPending} pendingText={t.sending} disabled={closed && !noteMode}>
            {noteMode ? t.addNote : t.send}
          </Button>
        </div>
        <ErrorText error={sendProblem ?? apiError(noteMode ? note.error : send.error)} />
      </form>
    </section>
  );
}
