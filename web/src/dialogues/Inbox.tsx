// «Диалоги»: one inbox across all the owner's agents (or one agent's, at its own address), filtered by agent
// and state and searched as it is typed, polled so a new message shows without a reload. Clients waiting for
// a person are pinned on top with how long they have waited; each row names its agent. The chosen dialogue
// fills the rest of the window beside the list (alone on a phone): the page itself never scrolls, the list
// and the conversation scroll inside it, so the reply box stays at the bottom of the window.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { apiError, useTRPC } from '../app/trpc';
import { ErrorText, Loading } from '../shared/ui';
import { Pager, useCursorPages } from '../shared/Pager';
import { formatDateTime } from '../shared/format';
import { Link, navigate } from '../app/router';
import { authorLabels, clientLabel, inboxTexts as t, stateFilterLabels, stateLabels, waitingFor, type DialogueState, type InboxItem } from './texts';
import { Transcript } from './Transcript';
import { formatPhone } from './phone-format';
import { polled } from './polling';
import './dialogues.css';

const STATES = Object.keys(stateFilterLabels) as (DialogueState | '')[];
/** A pause in typing this long runs the search (Enter runs it at once). */
const SEARCH_DEBOUNCE_MS = 300;
/** How often the waiting times («ждёт 12 мин») are counted again between the list's answers. */
const CLOCK_MS = 30_000;
const searchText = (draft: string) => draft.trim().slice(0, 200);

/** `/dialogues` (every agent) or `/agents/<id>/dialogues` (one agent's): the list's own address. */
export const inboxPath = (agentId: string | undefined) => (agentId ? `/agents/${encodeURIComponent(agentId)}/dialogues` : '/dialogues');

function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), CLOCK_MS);
    return () => clearInterval(timer);
  }, []);
  return now;
}

function DialogueRow({ d, href, current, now, showAgent }: { d: InboxItem; href: string; current: boolean; now: number; showAgent: boolean }) {
  return (
    <li>
      <Link
        to={href}
        className={`dialogue-item${current ? ' current' : ''}${d.state === 'escalated' ? ' dialogue-waiting' : ''}`}
        aria-current={current ? 'true' : undefined}
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
          {d.waitingSince ? (
            <strong className="dialogue-wait" data-testid="waiting-time">
              {waitingFor(d.waitingSince, now)}
            </strong>
          ) : null}
          {showAgent ? (
            <span className="dialogue-agent" data-testid="dialogue-agent">
              {d.agent.name}
            </span>
          ) : null}
          {d.heldBy ? <span className="muted">{d.heldBy.byYou ? 'вы' : d.heldBy.name}</span> : null}
          {d.lastMessageAt ? <time dateTime={d.lastMessageAt}>{formatDateTime(d.lastMessageAt)}</time> : null}
        </span>
      </Link>
    </li>
  );
}

export function InboxScreen({ scope, open }: { scope: string | undefined; open: { agentId: string; dialogueId: string } | undefined }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const counts = useQuery(trpc.dialogues.counts.queryOptions());
  const agents = counts.data?.agents;
  const scopeName = scope ? agents?.find((a) => a.agentId === scope)?.name : undefined;
  const [state, setState] = useState<DialogueState | ''>('');
  const [draft, setDraft] = useState('');
  const [q, setQ] = useState('');
  const pages = useCursorPages();
  const now = useNow();
  // Another filter or search starts at the first page. Noticed while rendering, not in an effect, so the
  // list is never asked for the old page under the new filter.
  const [pagedFor, setPagedFor] = useState({ state, q });
  if (pagedFor.state !== state || pagedFor.q !== q) {
    setPagedFor({ state, q });
    pages.reset();
  }
  const list = useQuery(
    trpc.dialogues.inbox.queryOptions(
      {
        limit: 20,
        ...(scope ? { agentId: scope } : {}),
        ...(state ? { state } : {}),
        ...(q ? { q } : {}),
        ...(pages.cursor ? { cursor: pages.cursor } : {}),
      },
      polled,
    ),
  );

  const base = inboxPath(scope);
  const hrefOf = (d: InboxItem) => (scope ? `${base}/${d.id}` : `/dialogues/${encodeURIComponent(d.agent.id)}/${d.id}`);
  useEffect(() => {
    const timer = setTimeout(() => setQ(searchText(draft)), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [draft]);
  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    setQ(searchText(draft));
  };

  if (agents && agents.length === 0) {
    return (
      <>
        <div className="page-head">
          <h1>{t.title}</h1>
        </div>
        <section className="card">
          <p>{t.noAgents}</p>
          <p>
            <Link to="/agents">{t.toAgents}</Link>
          </p>
        </section>
      </>
    );
  }

  const waiting = list.data?.waiting ?? [];
  const others = list.data?.dialogues ?? [];
  const showAgent = !scope;
  return (
    <div className={`inbox-page${open ? ' inbox-open' : ''}`}>
      <div className="page-head inbox-head">
        <h1>
          {t.title}
          {scopeName ? <span className="muted"> · {scopeName}</span> : null}
        </h1>
        {scope ? <Link to={`/agents/${encodeURIComponent(scope)}`}>{t.back}</Link> : null}
      </div>
      <ErrorText error={apiError(counts.error)} />
      <div className="inbox">
        <section className="card inbox-list" aria-labelledby="inbox-list-title">
          <h2 id="inbox-list-title" className="visually-hidden">
            Список диалогов
          </h2>
          <form className="inbox-filters" role="search" onSubmit={onSearch}>
            <label className="field inbox-search">
              <span className="label">{t.search}</span>
              <input type="search" name="q" value={draft} maxLength={200} placeholder={t.searchHint} onChange={(e) => setDraft(e.target.value)} />
            </label>
            <label className="field">
              <span className="label">{t.agent}</span>
              <select name="agent" value={scope ?? ''} onChange={(e) => navigate(inboxPath(e.target.value || undefined))}>
                <option value="">{t.allAgents}</option>
                {agents?.map((a) => (
                  <option key={a.agentId} value={a.agentId}>
                    {a.name}
                  </option>
                ))}
              </select>
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
          <div className="inbox-list-scroll">
            <ErrorText error={apiError(list.error)} />
            {list.isPending ? <Loading /> : null}
            {list.data && waiting.length === 0 && others.length === 0 ? <p className="muted">{q || state ? t.nothingFound : t.empty}</p> : null}
            {waiting.length > 0 ? (
              <section aria-labelledby="inbox-waiting-title" className="inbox-pinned">
                <h3 id="inbox-waiting-title" className="inbox-group">
                  {t.waitingTitle}
                </h3>
                <ul className="dialogue-list" data-testid="waiting-list">
                  {waiting.map((d) => (
                    <DialogueRow key={d.id} d={d} href={hrefOf(d)} current={d.id === open?.dialogueId} now={now} showAgent={showAgent} />
                  ))}
                </ul>
              </section>
            ) : null}
            {waiting.length > 0 && others.length > 0 ? <h3 className="inbox-group">{t.othersTitle}</h3> : null}
            <ul className="dialogue-list" data-testid="dialogue-list">
              {others.map((d) => (
                <DialogueRow key={d.id} d={d} href={hrefOf(d)} current={d.id === open?.dialogueId} now={now} showAgent={showAgent} />
              ))}
            </ul>
            <Pager pages={pages} nextCursor={list.data?.nextCursor} loading={list.isPending} label="Страницы диалогов" />
            <p className="hint">{t.live}</p>
          </div>
        </section>
        <div className="inbox-transcript">
          {open ? (
            <Transcript
              key={open.dialogueId}
              agentId={open.agentId}
              dialogueId={open.dialogueId}
              agentName={showAgent ? agents?.find((a) => a.agentId === open.agentId)?.name : undefined}
              backTo={base}
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
          ) : (
            <p className="card muted inbox-choose">{t.choose}</p>
          )}
        </div>
      </div>
    </div>
  );
}
