// The head of an open dialogue, kept short so the conversation gets the window: the client, the agent, the
// state and who answers, takeover and «Вернуть ассистенту» — which first shows the very text the client will
// get (asked from the server that sends it) and waits for a yes — and, behind «⋯», far from «Отправить»,
// the destructive actions, each confirmed.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { Link } from '../app/router';
import { Button, ConfirmDialog, Dialog, ErrorText, Loading } from '../shared/ui';
import { clientLabel, inboxTexts as t, stateLabels, type DialogueItem } from './texts';
import { formatPhone } from './phone-format';

interface HeaderProps {
  agentId: string;
  dialogueId: string;
  dialogue: DialogueItem;
  agentName: string | undefined;
  backTo: string;
  /** After a takeover or a release: the transcript and the list are asked again. */
  onChanged(): void;
  onDeleted(): void;
}

/** «⋯»: a small menu of what is rarely done and cannot be undone. */
function MoreMenu({ onDelete }: { onDelete(): void }) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    // Opened from the keyboard or not, the first item has the focus: Enter or Space picks it, Escape closes.
    ref.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus();
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !ref.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);
  return (
    <div className="more-menu" ref={ref}>
      <button
        type="button"
        className="btn btn-secondary more-button"
        aria-label={t.more}
        title={t.more}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
        data-testid="dialogue-more"
      >
        ⋯
      </button>
      {open ? (
        <div className="more-list" role="menu" id={menuId}>
          <button
            type="button"
            role="menuitem"
            className="more-item more-danger"
            onClick={() => {
              setOpen(false);
              onDelete();
            }}
          >
            {t.delete}
          </button>
        </div>
      ) : null}
    </div>
  );
}

function ReleaseDialog({
  agentId,
  dialogueId,
  open,
  onClose,
  onReleased,
}: {
  agentId: string;
  dialogueId: string;
  open: boolean;
  onClose(): void;
  onReleased(): void;
}) {
  const trpc = useTRPC();
  // Asked each time the dialog opens: what the client would get depends on the dialogue now.
  const preview = useQuery({ ...trpc.dialogues.releasePreview.queryOptions({ agentId, dialogueId }), enabled: open, gcTime: 0, staleTime: 0 });
  const release = useMutation(trpc.dialogues.release.mutationOptions());
  const text = preview.data?.text;
  return (
    <Dialog open={open} title={t.releaseTitle} onClose={onClose} closable={!release.isPending} testId="release-dialog">
      {preview.isPending || preview.isFetching ? <Loading /> : null}
      <ErrorText error={apiError(preview.error ?? release.error)} />
      {preview.data && !preview.isFetching ? (
        text ? (
          <>
            <p>{t.releaseWillSend}</p>
            <blockquote className="release-preview" data-testid="release-preview">
              {text}
            </blockquote>
            <p className="hint">{t.releaseAfter}</p>
          </>
        ) : (
          <p data-testid="release-preview-silent">{t.releaseSilent}</p>
        )
      ) : null}
      <div className="actions">
        <Button
          pending={release.isPending}
          disabled={!preview.data || preview.isFetching}
          onClick={async () => {
            if (await answerOf(release.mutateAsync({ agentId, dialogueId }))) onReleased();
          }}
        >
          {text ? t.releaseSend : t.releaseConfirm}
        </Button>
        <Button variant="secondary" onClick={onClose} disabled={release.isPending}>
          Отмена
        </Button>
      </div>
    </Dialog>
  );
}

export function DialogueHeader({ agentId, dialogueId, dialogue, agentName, backTo, onChanged, onDeleted }: HeaderProps) {
  const trpc = useTRPC();
  const takeover = useMutation(trpc.dialogues.takeover.mutationOptions());
  const remove = useMutation(trpc.dialogues.remove.mutationOptions());
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [releasing, setReleasing] = useState(false);
  const holder = dialogue.heldBy;
  const hint =
    dialogue.state === 'closed'
      ? t.closedHint
      : holder
        ? holder.byYou
          ? t.heldByYou
          : t.heldBy(holder.name)
        : dialogue.state === 'escalated'
          ? t.escalatedHint
          : null;
  return (
    <header className="transcript-head">
      <div className="transcript-title">
        <Link to={backTo} className="inbox-back" aria-label={t.toList}>
          ←
        </Link>
        <h2 id="transcript-title">{clientLabel(dialogue.client)}</h2>
        <span className={`badge state-${dialogue.state}`} data-testid="dialogue-state">
          {stateLabels[dialogue.state]}
        </span>
        <MoreMenu onDelete={() => setConfirmDelete(true)} />
      </div>
      <p className="muted client-facts">
        {agentName ? <span className="dialogue-agent">{agentName}</span> : null}
        {dialogue.client.vkUserId !== null ? (
          <a href={`https://vk.com/id${dialogue.client.vkUserId}`} target="_blank" rel="noreferrer">
            vk.com/id{dialogue.client.vkUserId}
          </a>
        ) : null}
        {dialogue.client.phone ? (
          <span>
            {t.phone}: <span className="dialogue-phone">{formatPhone(dialogue.client.phone)}</span>
          </span>
        ) : null}
      </p>
      <div className="transcript-actions">
        <p className="hint" data-testid="holder">
          {hint}
        </p>
        {dialogue.state !== 'operator' || !holder?.byYou ? (
          <Button
            variant="secondary"
            pending={takeover.isPending}
            disabled={dialogue.state === 'closed'}
            onClick={async () => (await answerOf(takeover.mutateAsync({ agentId, dialogueId }))) && onChanged()}
          >
            {t.takeover}
          </Button>
        ) : null}
        {dialogue.state === 'operator' || dialogue.state === 'escalated' ? (
          <Button variant="secondary" onClick={() => setReleasing(true)}>
            {t.release}
          </Button>
        ) : null}
      </div>
      <ErrorText error={apiError(takeover.error)} />
      <ReleaseDialog
        agentId={agentId}
        dialogueId={dialogueId}
        open={releasing}
        onClose={() => setReleasing(false)}
        onReleased={() => {
          setReleasing(false);
          onChanged();
        }}
      />
      <ConfirmDialog
        open={confirmDelete}
        title={t.deleteTitle}
        confirmText="Удалить"
        pending={remove.isPending}
        error={apiError(remove.error)}
        onCancel={() => setConfirmDelete(false)}
        onConfirm={async () => {
          if (await answerOf(remove.mutateAsync({ agentId, dialogueId }))) {
            setConfirmDelete(false);
            onDeleted();
          }
        }}
      >
        <p>{t.deleteText}</p>
      </ConfirmDialog>
    </header>
  );
}
