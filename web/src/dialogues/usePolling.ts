// Polling for the inbox: the list and an open transcript are asked again every POLL_MS, so a client's
// new message shows within two seconds whichever instance took it (the state is in the database).
// Polling, not server-sent events: nothing to hold open through proxies and Bun's idle timeout, and any
// instance answers any request. Unlike useQuery, a refresh keeps what is shown (no loading flash).
import { useCallback, useEffect, useRef, useState } from 'react';
import { isApiError, request, type ApiError } from '../app/api';

export const POLL_MS = 1500;

export interface Polled<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Asks now (after an action), without waiting for the next beat. */
  refresh(): void;
}

export function usePolling<T>(load: () => Promise<T>, deps: readonly unknown[]): Polled<T> {
  const [data, setData] = useState<T | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
  const tick = useRef<() => void>(() => {});

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    setData(undefined);
    setLoading(true);
    const run = async () => {
      if (running) return;
      running = true;
      clearTimeout(timer);
      try {
        const value = await request(() => loadRef.current());
        if (live) {
          setData(value);
          setError(undefined);
        }
      } catch (e) {
        if (live) setError(isApiError(e) ? e : { message: String(e), type: 'internal_error' });
      } finally {
        running = false;
        if (live) {
          setLoading(false);
          timer = setTimeout(() => void run(), POLL_MS);
        }
      }
    };
    tick.current = () => void run();
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, deps);

  const refresh = useCallback(() => tick.current(), []);
  return { data, error, loading, refresh };
}
