// The usage page's «Скачать CSV»: GET /api/usage/export for the period on screen, downloaded with the
// session (shared/FileDownload.tsx).
import { FileDownload } from '../shared/FileDownload';

/** Midnight (this browser's) of the first day of a period of `days` days ending today, as an ISO instant. */
export function usagePeriodStart(days: number): string {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  start.setDate(start.getDate() - (days - 1));
  return start.toISOString();
}

/** The export's address for a period and the list's key and model filters: the filters /api/usage takes. */
export function usageExportUrl(from: string, filters: { keyId?: string | undefined; model?: string | undefined } = {}): string {
  const params = new URLSearchParams({ from });
  if (filters.keyId) params.set('keyId', filters.keyId);
  if (filters.model) params.set('model', filters.model);
  return `/api/usage/export?${params}`;
}

export function UsageExportButton({ days, keyId, model }: { days: number; keyId?: string | undefined; model?: string | undefined }) {
  const filtered = keyId || model ? ' с выбранными ключом и моделью' : '';
  return (
    <FileDownload
      url={usageExportUrl(usagePeriodStart(days), { keyId, model })}
      label="Скачать CSV"
      testId="usage-export"
      title={`Все запросы за ${days} дн.${filtered} одним CSV-файлом (деньги — с точкой и 9 знаками после неё)`}
      excel
    />
  );
}
