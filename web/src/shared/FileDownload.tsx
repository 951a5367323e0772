// A button that downloads a file the server makes (usage CSV, statement CSV, счёт and акт PDFs, the
// operator's stats CSV). Those routes want the session's JWT in the Authorization header, which a plain
// link cannot send, so the file is fetched and handed to the browser under the name the server gives it;
// a refusal shows the server's Russian message under the button. A CSV download also offers «Для Excel»:
// the same file with ?format=excel-ru (semicolons, a decimal comma, Russian headers, Moscow time), which a
// Russian Excel opens into columns by a double click.
import { useState } from 'react';
import type { ApiError } from '../app/api';
import { organizationHeaderFor } from '../app/organization';
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
    response = await fetch(url, { headers: session ? { authorization: `Bearer ${session.token}`, ...organizationHeaderFor(url) } : {} });
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

/** The address of the same file in another format: `url` with its `format` parameter set. */
export function withFormat(url: string, format: string): string {
  const [path, query = ''] = url.split('?');
  const params = new URLSearchParams(query);
  params.set('format', format);
  return `${path}?${params}`;
}

const EXCEL_TITLE = 'Тот же файл для Excel: столбцы через точку с запятой, десятичная запятая, заголовки по-русски, время московское';

export function FileDownload({
  url,
  label,
  testId,
  title,
  className,
  excel = false,
}: {
  url: string;
  label: string;
  testId: string;
  title?: string;
  className?: string;
  /** Also offer «Для Excel»: the same address with format=excel-ru. */
  excel?: boolean;
}) {
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<ApiError>();
  const start = async (address: string) => {
    setPending(address);
    setError(undefined);
    try {
      await download(address);
    } catch (failure) {
      setError(failure as ApiError);
    } finally {
      setPending(null);
    }
  };
  const excelUrl = withFormat(url, 'excel-ru');
  return (
    <div className={className ?? 'file-button'}>
      <div className="file-button-row">
        <Button
          variant="secondary"
          onClick={() => start(url)}
          pending={pending === url}
          pendingText="Готовим файл…"
          data-testid={testId}
          data-href={url}
          title={title}
        >
          {label}
        </Button>
        {excel ? (
          <Button
            variant="secondary"
            onClick={() => start(excelUrl)}
            pending={pending === excelUrl}
            pendingText="Готовим файл…"
            data-testid={`${testId}-excel`}
            data-href={excelUrl}
            title={EXCEL_TITLE}
          >
            Для Excel
          </Button>
        ) : null}
      </div>
      <ErrorText error={error} />
    </div>
  );
}
