// The badges of «Диалоги» in the main menu: what waits in all the owner's agents (unread messages, dialogues
// waiting for a person), polled (useInboxCounts), so they follow the clients without a reload. The menu item
// opens the one inbox across the agents (Inbox.tsx).
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { Outputs } from '../app/api';
import { useTRPC } from '../app/trpc';
import { INBOX_REFRESH_MS } from '../shared/refresh';
import { inboxHomeTexts as t } from './texts';
import './dialogues.css';

export type InboxCounts = Outputs['dialogues']['counts'];

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
