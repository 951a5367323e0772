// Two small hooks for the page's requests: a query that loads when its inputs change, and an action
// run by the user. Both keep the loading state and the API's Russian error for the UI to show.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, isApiError, request, type ApiError, type Outputs } from './api';

export interface QueryState<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload(): void;
}

export function useQuery<T>(load: () => Promise<T>, deps: readonly unknown[]): QueryState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: ApiError | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    request(() => loadRef.current()).then(
      (data) => live && setState({ data, error: undefined, loading: false }),
      (error: unknown) =>
        live && setState((s) => ({ data: s.data, error: isApiError(error) ? error : { message: String(error), type: 'internal_error' }, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [...deps, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...state, reload };
}

export interface ActionState<A extends unknown[], T> {
  /** Resolves to the result, or undefined when the call failed (the error is in `error`). */
  run(...args: A): Promise<T | undefined>;
  pending: boolean;
  error: ApiError | undefined;
  /** Shows an error found before any request (a form that did not validate). */
  fail(error: ApiError | undefined): void;
}

export function useAction<A extends unknown[], T>(action: (...args: A) => Promise<T>): ActionState<A, T> {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const actionRef = useRef(action);
  actionRef.current = action;
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const run = useCallback(async (...args: A) => {
    setPending(true);
    setError(undefined);
    try {
      return await request(() => actionRef.current(...args));
    } catch (e) {
      if (mounted.current) setError(isApiError(e) ? e : { message: String(e), type: 'internal_error' });
      return undefined;
    } finally {
      if (mounted.current) setPending(false);
    }
  }, []);

  return { run, pending, error, fail: setError };
}

export type BillingConfig = Outputs['billing']['config'];

let billingConfig: Promise<BillingConfig> | undefined;

/**
 * The service's top-up settings (enabled, currency, limits): public and fixed while the server runs, so
 * asked once per page load; a failed answer is asked again by the next screen that needs it.
 */
export function useBillingConfig(): QueryState<BillingConfig> {
  return useQuery(() => {
    billingConfig ??= api.billing.config.query().catch((error: unknown) => {
      billingConfig = undefined;
      throw error;
    });
    return billingConfig;
  }, []);
}

export type Me = Outputs['auth']['me']['user'];

/** The signed-in user as the server has them now: the role decides whether the admin section shows. */
export function useMe(token: string): QueryState<Me> {
  return useQuery(async () => (await api.auth.me.query()).user, [token]);
}
