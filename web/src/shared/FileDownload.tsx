// A button that downloads a file the server makes (usage CSV, statement CSV, счёт and акт PDFs, the
// operator's stats CSV). Those routes want the session's JWT in the Authorization header, which a plain
// link cannot send, so the file is fetched and handed to the browser under the name the server gives it;
// a refusal shows the server's Russian message under the button.
import { useState } from 'react';
import type { ApiError } from '../app/api';
import { currentSession, endSession, SESSION_EXPIRED } from '../app/session';
import { Button, ErrorText } from './ui';

const NETWORK_ERROR: ApiError = { message: 'Не удалось скачать файл: проверьте подключение и повторите', type: 'network_error' };

function fileNameOf(disposition: string | null): string {
  return /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? 'conduit-file';
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

export function FileDownload({ url, label, testId, title, className }: { url: string; label: string; testId: string; title?: string; className?: string }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError>();
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
    <div className={className ?? 'file-button'}>
      <Button variant="secondary" onClick={start} pending={pending} pendingText="Готовим файл…" data-testid={testId} data-href={url} title={title}>
        {label}
      </Button>
      <ErrorText error={error} />
    </div>
  );
}
