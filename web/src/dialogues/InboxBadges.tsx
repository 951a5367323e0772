// «Диалоги» in the main menu: one way into the inbox whatever agent a client wrote to. With one agent it
// opens that agent's dialogues; with several, it lists them with what waits in each (unread messages,
// dialogues waiting for a person); with none, it says where agents are made. The menu's badge polls the
// same count (useInboxCounts), so it follows the clients without a reload.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { Outputs } from '../app/api';
import { apiError, useTRPC } from '../app/trpc';
import { ErrorText, Loading } from '../shared/ui';
import { INBOX_REFRESH_MS } from '../shared/refresh';
import { Link, navigate } from '../app/router';
import { inboxHomeTexts as t } from './texts';
import './dialogues.css';

export type InboxCounts = Outputs['dialogues']['counts'];

const dialoguesOf = (agentId: string) => `/agents/${encodeURIComponent(agentId)}/dialogues`;
/**
 * The owner's counts, asked again every INBOX_REFRESH_MS while the tab is seen, at every move (`path`),
 * and whenever a screen invalidates `trpc.dialogues.counts` (a dialogue read, taken over).
 */
export function useInboxCounts(path: string) {
  const trpc = useTRPC();
  const counts = useQuery(trpc.dialogues.counts.queryOptions(undefined, { refetchInterval: INBOX_REFRESH_MS }));
  const { refetch } = counts;
  const askedAt = useRef(path);
  useEffect(() => {
    if (askedAt.current === path) return;
    askedAt.current = path;
    void refetch();
  }, [path, refetch]);
  return counts;
}

/** The menu item's badges: unread messages, and (highlighted) dialogues waiting for a person. */
export function InboxBadges({ counts }: { counts: InboxCounts | undefined }) {
  if (!counts || (counts.unread === 0 && counts.escalated === 0)) return null;
  return (
    <>
      {counts.unread > 0 ? (
        <span className="nav-badge" aria-hidden="true" data-testid="nav-unread">
          {counts.unread}
        </span>
      ) : null}
      {counts.escalated > 0 ? (
        <span className="nav-badge nav-badge-waiting" aria-hidden="true" data-testid="nav-waiting">
          {t.waitingShort(counts.escalated)}
        </span>
      ) : null}
      <span className="visually-hidden">{t.spoken(counts.unread, counts.escalated)}</span>
    </>
  );
}

export function InboxHome() {
  const trpc = useTRPC();
  const counts = useQuery(trpc.dialogues.counts.queryOptions());
  const agents = counts.data?.agents;
  useEffect(() => {
    if (agents?.length === 1) navigate(dialoguesOf(agents[0]!.agentId), true);
  }, [agents]);

  return (
    <>
      <div className="page-head">
        <h1>{t.title}</h1>
      </div>
      {counts.isPending ? <Loading /> : null}
      <ErrorText error={apiError(counts.error)} />
      {agents && agents.length === 0 ? (
        <section className="card">
          <p>{t.noAgents}</p>
          <p>
            <Link to="/agents">{t.toAgents}</Link>
          </p>
        </section>
      ) : null}
      {agents && agents.length > 1 ? (
        <section className="card" aria-labelledby="inbox-home-title">
          <h2 id="inbox-home-title">{t.choose}</h2>
          <ul className="inbox-agents" data-testid="inbox-agents">
            {agents.map((a) => (
              <li key={a.agentId}>
                <Link to={dialoguesOf(a.agentId)} className="inbox-agent" data-testid="inbox-agent">
                  <strong>{a.name}</strong>
                  <span className="inbox-agent-counts">
                    {a.unread > 0 ? <span className="badge badge-unread">{t.unread(a.unread)}</span> : null}
                    {a.escalated > 0 ? <span className="badge state-escalated">{t.waiting(a.escalated)}</span> : null}
                    {a.unread === 0 && a.escalated === 0 ? <span className="muted">{t.nothingNew}</span> : null}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
