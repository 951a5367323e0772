// How often the overview asks the balance and the latest requests again on its own, while the tab is
// seen: often enough to follow an API client at work, rare enough not to load the server.
export const REFRESH_MS = 30_000;

/** How often the main menu's «Диалоги» badge asks what waits: a client's message should not wait minutes to be seen. */
export const INBOX_REFRESH_MS = 10_000;
