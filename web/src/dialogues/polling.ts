// Polling for the inbox: the list and an open transcript are asked again every POLL_MS, so a client's
// new message shows within two seconds whichever instance took it (the state is in the database).
// Polling, not server-sent events: nothing to hold open through proxies and Bun's idle timeout, and any
// instance answers any request. A refresh keeps what is shown (no loading flash: isPending is only the first answer).
export const POLL_MS = 1500;

/**
 * The query options of a polled read. A hidden tab keeps asking, so the list is current when it is seen
 * again; another filter or dialogue starts empty rather than showing the last one's rows as its own.
 */
export const polled = { refetchInterval: POLL_MS, refetchIntervalInBackground: true, placeholderData: undefined } as const;
