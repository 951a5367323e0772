// The «Диалоги» section of an agent: every client dialogue, newest activity first, filtered by state and
// searched by text as it is typed, polled so a new message shows without a reload; the chosen dialogue's transcript
// beside the list (below it on a phone, where the list hides while a dialogue is open).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { apiError, useTRPC } from '../app/trpc';
import { ErrorText, Loading } from '../shared/ui';
import { Pager, useCursorPages } from '../shared/Pager';
import { formatDateTime } from '../shared/format';
import { Link, navigate } from '../app/router';
import { authorLabels, clientLabel, inboxTexts as t, stateFilterLabels, stateLabels, type DialogueState } from './texts';
import { Transcript } from './Transcript';
import { formatPhone } from './phone-format';
import { polled } from './polling';
import './dialogues.css';

const STATES = Object.keys(stateFilterLabels) as (DialogueState | '')[];
/** A pause in typing this long runs the search (Enter runs it at once). */
const SEARCH_DEBOUNCE_MS = 300;
const searchText = (draft: string) => draft.trim().slice(0, 200);

export function DialoguesScreen({ agentId, dialogueId }: { agentId: string; dialogueId: string | undefined }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const agent = useQuery(trpc.agents.get.queryOptions({ id: agentId }));
  const [state, setState] = useState<DialogueState | ''>('');
  const [draft, setDraft] = useState('');
  const [q, setQ] = useState('');
  const pages = useCursorPages();
  // Another filter or search starts at the first page. Noticed while rendering, not in an effect, so the
  // list is never asked for the old page under the new filter.
  const [pagedFor, setPagedFor] = useState({ state, q });
  if (pagedFor.state !== state || pagedFor.q !== q) {
    setPagedFor({ state, q });
    pages.reset();
  }
  const list = useQuery(
    trpc.dialogues.list.queryOptions(
      { agentId, limit: 20, ...(state ? { state } : {}), ...(q ? { q } : {}), ...(pages.cursor ? { cursor: pages.cursor } : {}) },
      polled,
    ),
  );

  const base = `/agents/${encodeURIComponent(agentId)}/dialogues`;
  useEffect(() => {
    const timer = setTimeout(() => setQ(searchText(draft)), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [draft]);
  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    setQ(searchText(draft));
  };

  return (
    <>
      <p>
        <Link to={`/agents/${encodeURIComponent(agentId)}`}>{t.back}</Link>
      </p>
      <div className="page-head">
        <h1>
          {t.title}
          {agent.data ? <span className="muted"> · {agent.data.name}</span> : null}
        </h1>
      </div>
      <ErrorText error={apiError(agent.error)} />
      <div className={`inbox${dialogueId ? ' inbox-open' : ''}`}>
        <section className="card inbox-list" aria-labelledby="inbox-list-title">
          <h2 id="inbox-list-title" className="visually-hidden">
            Список диалогов
          </h2>
          <form className="inbox-filters" role="search" onSubmit={onSearch}>
            <label className="field">
              <span className="label">{t.search}</span>
              <input type="search" name="q" value={draft} maxLength={200} placeholder={t.searchHint} onChange={(e) => setDraft(e.target.value)} />
            </label>
            <label className="field">
              <span className="label">{t.state}</span>
              <select name="state" value={state} onChange={(e) => setState(e.target.value as DialogueState | '')}>
                {STATES.map((s) => (
                  <option key={s} value={s}>
                    {stateFilterLabels[s]}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" className="visually-hidden">
              {t.search}
            </button>
          </form>
          <p className="hint">{t.live}</p>
          <ErrorText error={apiError(list.error)} />
          {list.isPending ? <Loading /> : null}
          {list.data && list.data.dialogues.length === 0 ? <p className="muted">{q || state ? t.nothingFound : t.empty}</p> : null}
          <ul className="dialogue-list" data-testid="dialogue-list">
            {list.data?.dialogues.map((d) => (
              <li key={d.id}>
                <Link
                  to={`${base}/${d.id}`}
                  className={`dialogue-item${d.id === dialogueId ? ' current' : ''}`}
                  aria-current={d.id === dialogueId ? 'true' : undefined}
                  data-testid="dialogue-item"
                >
                  <span className="dialogue-top">
                    <strong className="dialogue-client">{clientLabel(d.client)}</strong>
                    {d.client.phone ? <span className="muted dialogue-phone">{formatPhone(d.client.phone)}</span> : null}
                    {d.unread > 0 ? <span className="badge badge-unread">{t.unread(d.unread)}</span> : null}
                  </span>
                  <span className="dialogue-preview">{d.lastMessage ? `${authorLabels[d.lastMessage.author]}: ${d.lastMessage.text}` : ''}</span>
                  <span className="dialogue-bottom">
                    <span className={`badge state-${d.state}`}>{stateLabels[d.state]}</span>
                    {d.heldBy ? <span className="muted">{d.heldBy.byYou ? 'вы' : d.heldBy.name}</span> : null}
                    {d.lastMessageAt ? <time dateTime={d.lastMessageAt}>{formatDateTime(d.lastMessageAt)}</time> : null}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
          <Pager pages={pages} nextCursor={list.data?.nextCursor} loading={list.isPending} label="Страницы диалогов" />
        </section>
        <div className="inbox-transcript">
          {dialogueId ? (
            <>
              <p className="inbox-back">
                <Link to={base}>{t.toList}</Link>
              </p>
              <Transcript
                key={dialogueId}
                agentId={agentId}
                dialogueId={dialogueId}
                onChanged={() => {
                  void list.refetch();
                  // The menu's badge counts what was just read or taken over.
                  void queryClient.invalidateQueries({ queryKey: trpc.dialogues.counts.pathKey() });
                }}
                onDeleted={() => {
                  void list.refetch();
                  navigate(base, true);
                }}
              />
            </>
          ) : (
            <p className="card muted inbox-choose">{t.choose}</p>
          )}
        </div>
      </div>
    </>
  );
}
