// The signed-in user's JWT, kept for its lifetime (24 h) in localStorage. When it runs out, or the API
// answers 401 for it, the session ends and the user is sent to the login form with a reason.

export interface Session {
  token: string;
  email: string;
  /** Epoch milliseconds, from the token's `exp`. */
  expiresAt: number;
}

const STORAGE_KEY = 'conduit.session';
type Listener = (session: Session | null, reason: string | null) => void;
const listeners = new Set<Listener>();
let timer: ReturnType<typeof setTimeout> | undefined;

export const SESSION_EXPIRED = 'Сессия истекла: войдите снова';

/** The `exp` claim of a JWT in milliseconds; the page only reads it, the server verifies the token. */
function expiryOf(token: string): number | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : null;
  } catch {
    return null;
  }
}

function read(): Session | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<Session>;
    if (typeof parsed.token !== 'string' || typeof parsed.email !== 'string' || typeof parsed.expiresAt !== 'number') return null;
    return parsed as Session;
  } catch {
    return null;
  }
}

let current: Session | null = read();
let endReason: string | null = null;
if (current && current.expiresAt <= Date.now()) {
  current = null;
  endReason = SESSION_EXPIRED;
  localStorage.removeItem(STORAGE_KEY);
}

function schedule() {
  clearTimeout(timer);
  if (!current) return;
  // setTimeout fires early for delays beyond ~24.8 days; a JWT lives 24 h, so that never happens.
  timer = setTimeout(() => endSession(SESSION_EXPIRED), Math.max(0, current.expiresAt - Date.now()));
}
schedule();

function emit() {
  for (const listener of listeners) listener(current, endReason);
}

export function currentSession(): Session | null {
  return current;
}

/** Why the last session ended (shown once on the login form), or null. */
export function takeEndReason(): string | null {
  const reason = endReason;
  endReason = null;
  return reason;
}

export function startSession(token: string, email: string): void {
  const expiresAt = expiryOf(token) ?? Date.now() + 24 * 60 * 60 * 1000;
  current = { token, email, expiresAt };
  endReason = null;
  localStorage.setItem(STORAGE_KEY, JSON.stringify(current));
  schedule();
  emit();
}

export function endSession(reason: string | null = null): void {
  if (!current) return;
  current = null;
  endReason = reason;
  localStorage.removeItem(STORAGE_KEY);
  schedule();
  emit();
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// Another tab signed in or out.
window.addEventListener('storage', (event) => {
  if (event.key !== STORAGE_KEY) return;
  current = read();
  schedule();
  emit();
});
