// Keyset paging of an API list: the API hands out a cursor for the next page only, so the cursors of the
// pages already seen are kept to go back.
import { useCallback, useState } from 'react';
import { Button } from './ui';

export interface CursorPages {
  /** The cursor to load the current page with (undefined: the first page). */
  cursor: string | undefined;
  /** 1-based. */
  number: number;
  next(cursor: string): void;
  back(): void;
  reset(): void;
}

export function useCursorPages(): CursorPages {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const next = useCallback((cursor: string) => setCursors((c) => [...c, cursor]), []);
  const back = useCallback(() => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)), []);
  const reset = useCallback(() => setCursors((c) => (c.length === 1 ? c : [undefined])), []);
  return { cursor: cursors.at(-1), number: cursors.length, next, back, reset };
}

export function Pager({ pages, nextCursor, loading, label }: { pages: CursorPages; nextCursor: string | null | undefined; loading: boolean; label: string }) {
  if (pages.number === 1 && !nextCursor) return null;
  return (
    <nav className="pager" aria-label={label}>
      <Button variant="secondary" onClick={pages.back} disabled={pages.number === 1 || loading}>
        ← Назад
      </Button>
      <span aria-live="polite">Страница {pages.number}</span>
      <Button variant="secondary" onClick={() => nextCursor && pages.next(nextCursor)} disabled={!nextCursor || loading}>
        Далее →
      </Button>
    </nav>
  );
}
