// Bulk import of catalog products from CSV, pasted or read from a file. The API takes every row or none:
// with a bad row nothing is imported and each bad row is listed with the reason.
import { useMutation } from '@tanstack/react-query';
import { useTRPC, useRefusal, answerOf } from '../app/trpc';
import { useId, useState, type ChangeEvent, type FormEvent } from 'react';
import type { Outputs } from '../app/api';
import { Button, ErrorText, Field } from '../shared/ui';
import { formatInt } from '../shared/format';

type Report = Outputs['commerce']['importProducts'];

/** Bigger files are refused by the API anyway (5 000 000 characters); reading them would only freeze the tab. */
const MAX_FILE_BYTES = 5_000_000;
/** A file with thousands of bad rows usually has one mistake repeated: the first ones say what it is. */
const SHOWN_ERRORS = 50;

export function ProductImport({ agentId, onImported }: { agentId: string; onImported(): void }) {
  const [csv, setCsv] = useState('');
  const [fileError, setFileError] = useState<string | undefined>();
  const [report, setReport] = useState<Report | null>(null);
  const trpc = useTRPC();
  const run = useMutation(trpc.commerce.importProducts.mutationOptions());
  const [runError, refuse] = useRefusal(run);
  const fileId = useId();
  const reportId = useId();

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    setFileError(undefined);
    const file = event.target.files?.[0];
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      setFileError('Файл слишком большой: не больше 5 МБ за один импорт');
      return;
    }
    try {
      setCsv(await file.text());
      setReport(null);
    } catch {
      setFileError('Не удалось прочитать файл: выберите его ещё раз');
    }
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setReport(null);
    if (csv.trim() === '') {
      refuse({ message: 'Вставьте CSV с заголовком или выберите файл', type: 'validation' });
      return;
    }
    const result = await answerOf(run.mutateAsync({ agentId, csv }));
    if (!result) return;
    setReport(result);
    if (result.ok) {
      setCsv('');
      onImported();
    }
  };

  return (
    <form className="tool" onSubmit={onSubmit} noValidate data-testid="product-import">
      <h4>Импорт из CSV</h4>
      <p className="hint">
        Первая строка — заголовок: <code>title;description;price;currency;available</code>. Цена — в рублях с копейками, как в форме товара (<code>1499,90</code>);
        прежний столбец <code>priceMinor</code> в копейках тоже принимается. Наличие — да/нет; <code>stock</code> — остаток в штуках (пусто — не учитывается). Любой
        другой столбец — характеристика товара с этим названием (<code>размер</code>, <code>цвет</code>). Разделитель — точка с запятой или запятая. Товары
        добавляются все сразу или ни один.
      </p>
      <Field label="Содержимое CSV">
        {(props) => <textarea {...props} name="csv" rows={5} spellCheck={false} value={csv} onChange={(e) => setCsv(e.target.value)} />}
      </Field>
      <div className="field">
        <label htmlFor={fileId}>Или файл CSV</label>
        <input id={fileId} type="file" accept=".csv,text/csv,text/plain" onChange={onFile} aria-describedby={fileError ? `${fileId}-error` : undefined} />
        <ErrorText error={fileError} id={`${fileId}-error`} />
      </div>
      <div className="actions">
        <Button type="submit" pending={run.isPending} pendingText="Импортируем…">
          Импортировать
        </Button>
        {report?.ok ? (
          <span className="success" role="status" data-testid="import-result">
            Импортировано товаров: {formatInt(report.imported)}
          </span>
        ) : null}
      </div>
      <ErrorText error={runError} />
      {report && !report.ok ? (
        <div className="import-errors" role="alert" aria-labelledby={reportId} data-testid="import-errors">
          <p className="error" id={reportId}>
            Ничего не импортировано: исправьте {report.errors.length === 1 ? 'строку' : 'строки'} и повторите.
          </p>
          <ul>
            {report.errors.slice(0, SHOWN_ERRORS).map((e) => (
              <li key={e.row}>
                Строка {e.row}: {e.message}
              </li>
            ))}
          </ul>
          {report.errors.length > SHOWN_ERRORS ? <p className="hint">И ещё строк с ошибками: {formatInt(report.errors.length - SHOWN_ERRORS)}</p> : null}
          <p className="hint">Номер строки считается без заголовка.</p>
        </div>
      ) : null}
    </form>
  );
}
