// The usage page's «Скачать CSV»: GET /api/usage/export for the period on screen. The export wants the
// session's JWT in the Authorization header, which a plain link cannot send, so the file is fetched and
// handed to the browser as a download under the name the server gives it.
import { useState } from 'react';
import type { ApiError } from '../api';
import { Button, ErrorText } from '../components/ui';
import { currentSession, endSession, SESSION_EXPIRED } from '../session';

const NETWORK_ERROR: ApiError = { message: 'Не удалось скачать файл: проверьте подключение и повторите', type: 'network_error' };

/** Midnight (this browser's) of the first day of a period of `days` days ending today, as an ISO instant. */
export function usagePeriodStart(days: number): string {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  start.setDate(start.getDate() - (days - 1));
  return start.toISOString();
}

/** The export's address for a period: the filters /api/usage takes. */
export function usageExportUrl(from: string): string {
  return `/api/usage/export?${new URLSearchParams({ from })}`;
}

function fileNameOf(disposition: string | null): string {
  return /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? 'conduit-usage.csv';
}

export async function download(url: string): Promise<void> {
  const session = currentSession();
  let response: Response;
  try {
    response = await fetch(url, { headers: session ? { authorization: `Bearer ${session.token}` } : {} });
  } catch {
    throw NETWORK_ERROR;
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: ApiError } | null;
    const error = body?.error && typeof body.error.message === 'string' ? body.error : NETWORK_ERROR;
    if (error.type === 'unauthorized' && session) endSession(SESSION_EXPIRED);
    throw error;
  }
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = fileNameOf(response.headers.get('content-disposition'));
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the file to the browser; the address may go once this task ends.
  setTimeout(() => URL.revokeObjectURL(link.href), 0);
}

export function UsageExportButton({ days }: { days: number }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError>();
  const url = usageExportUrl(usagePeriodStart(days));
  const start = async () => {
    setPending(true);
    setError(undefined);
    try {
      await download(url);
    } catch (failure) {
      setError(failure as ApiError);
    } finally {
      setPending(false);
    }
  };
  return (
    <>
      <Button
        variant="secondary"
        onClick={start}
        pending={pending}
        pendingText="Готовим файл…"
        data-testid="usage-export"
        data-href={url}
        title={`Все запросы за ${days} дн. одним CSV-файлом (деньги — с точкой и 9 знаками после неё)`}
      >
        Скачать CSV
      </Button>
      <ErrorText error={error} />
    </>
  );
}
