// The admin screens' error line, in its own file so that the screens and the console that holds them
// (Admin.tsx) do not import each other.
import { createContext, useContext, useEffect } from 'react';
import type { ApiError } from '../app/api';
import { ErrorText } from '../shared/ui';

/** Given by Admin.tsx: asks the server again who the user is. */
export const RecheckRole = createContext<() => void>(() => {});

/** An admin API error next to what failed; a 403 also makes the page re-read the user's role. */
export function AdminError({ error }: { error: ApiError | undefined }) {
  const recheck = useContext(RecheckRole);
  const forbidden = error?.type === 'forbidden';
  useEffect(() => {
    if (forbidden) recheck();
  }, [forbidden, recheck]);
  return <ErrorText error={error} />;
}
