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

/** The export's address for a period: the filters /api/usage takes. */
export function usageExportUrl(from: string): string {
  return `/api/usage/export?${new URLSearchParams({ from })}`;
}

export function UsageExportButton({ days }: { days: number }) {
  return (
    <FileDownload
      url={usageExportUrl(usagePeriodStart(days))}
      label="Скачать CSV"
      testId="usage-export"
      title={`Все запросы за ${days} дн. одним CSV-файлом (деньги — с точкой и 9 знаками после неё)`}
    />
  );
}
