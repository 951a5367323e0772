// Quick replies: the owner's saved texts, theirs in every agent's dialogue. «Быстрые ответы» under the reply
// box lists them; a pick puts the text into the box, to be edited before it is sent. «Изменить список» opens
// the list to add, change and delete them (a deletion confirmed).
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { createPortal } from 'react-dom';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { Button, ConfirmDialog, Dialog, ErrorText, Loading } from '../shared/ui';
import { quickReplyTexts as t, type QuickReply } from './texts';

function ReplyForm({ initial, onDone }: { initial: QuickReply | undefined; onDone(): void }) {
  const trpc = useTRPC();
  const [title, setTitle] = useState(initial?.title ?? '');
  const [text, setText] = useState(initial?.text ?? '');
  const create = useMutation(trpc.dialogues.createQuickReply.mutationOptions());
  const update = useMutation(trpc.dialogues.updateQuickReply.mutationOptions());
  const ids = useId();
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    // Rendered from inside the reply box's form: this form's submit is not the reply's.
    event.stopPropagation();
    const saved = initial ? await answerOf(update.mutateAsync({ id: initial.id, title, text })) : await answerOf(create.mutateAsync({ title, text }));
    if (saved) onDone();
  };
  return (
    <form className="quick-form" onSubmit={onSubmit} data-testid="quick-reply-form">
      <div className="field">
        <label htmlFor={`${ids}-title`}>{t.title}</label>
        <input id={`${ids}-title`} value={title} maxLength={100} required onChange={(e) => setTitle(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${ids}-text`}>{t.text}</label>
        <textarea id={`${ids}-text`} value={text} rows={3} maxLength={4000} required onChange={(e) => setText(e.target.value)} />
      </div>
      <ErrorText error={apiError(create.error ?? update.error)} />
      <div className="actions">
        <Button type="submit" pending={create.isPending || update.isPending}>
          {t.save}
        </Button>
        {initial ? (
          <Button variant="secondary" onClick={onDone}>
            {t.cancel}
          </Button>
        ) : null}
      </div>
    </form>
  );
}

function ManageQuickReplies({ open, onClose }: { open: boolean; onClose(): void }) {
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.dialogues.quickReplies.queryOptions(), enabled: open });
  const remove = useMutation(trpc.dialogues.removeQuickReply.mutationOptions());
  const [editing, setEditing] = useState<string | undefined>();
  const [adding, setAdding] = useState(0);
  const [removing, setRemoving] = useState<QuickReply | undefined>();
  const replies = list.data?.quickReplies ?? [];
  const done = () => {
    setEditing(undefined);
    setAdding((n) => n + 1);
    void list.refetch();
  };
  return (
    <Dialog open={open} title={t.manageTitle} onClose={onClose} testId="quick-replies-dialog">
      <p className="hint">{t.manageHint}</p>
      {list.isPending ? <Loading /> : null}
      <ErrorText error={apiError(list.error)} />
      <ul className="quick-manage">
        {replies.map((r) =>
          editing === r.id ? (
            <li key={r.id}>
              <ReplyForm initial={r} onDone={done} />
            </li>
          ) : (
            <li key={r.id} data-testid="quick-reply-row">
              <div className="quick-summary">
                <strong>{r.title}</strong>
                <span className="muted">{r.text}</span>
              </div>
              <div className="row-actions">
                <Button variant="secondary" onClick={() => setEditing(r.id)} aria-label={`${t.edit}: ${r.title}`}>
                  {t.edit}
                </Button>
                <Button variant="danger" onClick={() => setRemoving(r)} aria-label={`${t.remove}: ${r.title}`}>
                  {t.remove}
                </Button>
              </div>
            </li>
          ),
        )}
      </ul>
      <h3>{t.add}</h3>
      <ReplyForm key={adding} initial={undefined} onDone={done} />
      <div className="actions">
        <Button variant="secondary" onClick={onClose}>
          {t.close}
        </Button>
      </div>
      <ConfirmDialog
        open={removing !== undefined}
        title={t.removeTitle(removing?.title ?? '')}
        confirmText={t.remove}
        pending={remove.isPending}
        error={apiError(remove.error)}
        onCancel={() => setRemoving(undefined)}
        onConfirm={async () => {
          if (removing && (await answerOf(remove.mutateAsync({ id: removing.id })))) {
            setRemoving(undefined);
            void list.refetch();
          }
        }}
      >
        <p>{t.removeText}</p>
      </ConfirmDialog>
    </Dialog>
  );
}

/** «Быстрые ответы»: a list that opens above the reply box; `onPick` gets the chosen text. */
export function QuickReplyPicker({ onPick }: { onPick(text: string): void }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const [managing, setManaging] = useState(false);
  const list = useQuery({ ...trpc.dialogues.quickReplies.queryOptions(), enabled: open || managing });
  const listId = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
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
  const replies = list.data?.quickReplies ?? [];
  return (
    <div className="quick-picker" ref={ref}>
      <button
        type="button"
        className="btn btn-secondary"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onClick={() => setOpen((o) => !o)}
        data-testid="quick-replies"
      >
        {t.pick}
      </button>
      {open ? (
        <div className="quick-list" id={listId} role="group" aria-label={t.pick}>
          <p className="hint">{t.pickHint}</p>
          {list.isPending ? <Loading /> : null}
          <ErrorText error={apiError(list.error)} />
          {list.data && replies.length === 0 ? <p className="muted">{t.none}</p> : null}
          <ul>
            {replies.map((r) => (
              <li key={r.id}>
                <button
                  type="button"
                  className="quick-item"
                  title={r.text}
                  onClick={() => {
                    setOpen(false);
                    onPick(r.text);
                  }}
                >
                  <strong>{r.title}</strong>
                  <span className="muted">{r.text}</span>
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            className="btn btn-link"
            onClick={() => {
              setOpen(false);
              setManaging(true);
            }}
          >
            {t.manage}
          </button>
        </div>
      ) : null}
      {/* Out of the reply box's form: a form inside a form is not valid HTML. */}
      {createPortal(
        <ManageQuickReplies
          open={managing}
          onClose={() => {
            setManaging(false);
            void list.refetch();
          }}
        />,
        document.body,
      )}
    </div>
  );
}
