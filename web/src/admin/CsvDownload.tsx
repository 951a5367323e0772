// «Скачать CSV» on an operator's screen: the file is fetched with the session's JWT (a plain link cannot
// send it) and handed to the browser under the name the server gives, as on the usage page.
import { useState } from 'react';
import type { ApiError } from '../api';
import { Button, ErrorText } from '../components/ui';
import { download } from '../screens/UsageExport';

export function CsvDownload({ url, label = 'Скачать CSV' }: { url: string; label?: string }) {
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
    <>
      <Button variant="secondary" onClick={start} pending={pending} pendingText="Готовим файл…" data-testid="csv-download" data-href={url}>
        {label}
      </Button>
      <ErrorText error={error} />
    </>
  );
}
