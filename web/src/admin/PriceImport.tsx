// «Импорт цен»: the provider's own prices (USD per token) × one multiplier (exchange rate × margin)
// become ours per 1M tokens. The preview lists each model beside the price in force; the operator keeps
// the rows to save with checkboxes, and only those are written.
import { useMutation } from '@tanstack/react-query';
import { answerOf, apiError, useRefusal, useTRPC } from '../app/trpc';
import { useId, useState, type FormEvent } from 'react';
import { importInput, importPreviewInput } from '@server/admin/input';
import type { Outputs } from '../app/api';
import { Button, Field } from '../shared/ui';
import { formatExact, formatInt, shiftDecimal } from '../shared/format';
import { useBillingConfig } from '../shared/billing-config';
import { skipReasonLabels } from '../shared/texts';
import { check, decimalInput, type FieldErrors } from '../shared/validate';
import { AdminError } from './AdminError';
import { PerMillionPair } from './PerMillion';

type Preview = Outputs['admin']['previewPriceImport'];
type PreviewRow = Preview['rows'][number];
type Imported = Outputs['admin']['importPrices'];

/** The provider's price per token as text per 1M tokens, exactly: "0.000001" → «1». */
const upstreamPerMillion = (perToken: string) => shiftDecimal(perToken, 6).replace('.', ',');

const SHOWN_SKIPPED = 50;

function SkippedList({ skipped }: { skipped: Preview['skipped'] }) {
  if (skipped.length === 0) return null;
  return (
    <details className="skipped">
      <summary>Пропущено моделей: {formatInt(skipped.length)}</summary>
      <ul>
        {skipped.slice(0, SHOWN_SKIPPED).map((s) => (
          <li key={s.model}>
            <code>{s.model}</code> — {skipReasonLabels[s.reason]}
          </li>
        ))}
      </ul>
      {skipped.length > SHOWN_SKIPPED ? <p className="hint">И ещё {formatInt(skipped.length - SHOWN_SKIPPED)}.</p> : null}
    </details>
  );
}

const same = (row: PreviewRow) =>
  row.current !== null &&
  row.current.pattern === row.model &&
  row.current.promptPerMillion === row.promptPerMillion &&
  row.current.completionPerMillion === row.completionPerMillion;

export function PriceImport({ onImported }: { onImported(): void }) {
  const currency = useBillingConfig().data?.currency;
  const [multiplier, setMultiplier] = useState('');
  const [filter, setFilter] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [preview, setPreview] = useState<(Preview & { multiplier: number }) | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [result, setResult] = useState<Imported | null>(null);
  const trpc = useTRPC();
  const load = useMutation(trpc.admin.previewPriceImport.mutationOptions());
  const save = useMutation(trpc.admin.importPrices.mutationOptions());
  const [saveError, refuseSave] = useRefusal(save);
  const allId = useId();

  const onPreview = async (event: FormEvent) => {
    event.preventDefault();
    setResult(null);
    const checked = check(importPreviewInput, { multiplier: decimalInput(multiplier), filter: filter.trim() || undefined });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const answer = await answerOf(load.mutateAsync(checked.data));
    if (!answer) return;
    setPreview({ ...answer, multiplier: checked.data.multiplier });
    // Rows that would change something start checked; a price already in force as it is, not.
    setSelected(new Set(answer.rows.filter((r) => !same(r)).map((r) => r.model)));
  };

  const onSave = async () => {
    if (!preview) return;
    const models = preview.rows.map((r) => r.model).filter((m) => selected.has(m));
    const checked = check(importInput, { multiplier: preview.multiplier, models });
    if (!checked.ok) {
      refuseSave({ message: checked.message, type: 'validation' });
      return;
    }
    const answer = await answerOf(save.mutateAsync(checked.data));
    if (!answer) return;
    setResult(answer);
    setPreview(null);
    setSelected(new Set());
    onImported();
  };

  const toggle = (model: string, on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(model);
      else next.delete(model);
      return next;
    });

  const rows = preview?.rows ?? [];
  const allChecked = rows.length > 0 && rows.every((r) => selected.has(r.model));

  return (
    <section className="card" aria-labelledby="price-import-title" data-testid="price-import">
      <h2 id="price-import-title">Импорт цен</h2>
      <p className="hint">
        Цены провайдера (в долларах за токен) умножаются на множитель — курс × наценка. Например, курс 95 ₽ за $ и наценка 20 %: 95 × 1,2 = 114. Сначала посмотрите
        цены, затем отметьте строки для сохранения.
      </p>
      <form className="inline-form" onSubmit={onPreview} noValidate>
        <Field label="Множитель (курс × наценка)" error={errors.multiplier}>
          {(props) => (
            <input {...props} name="importMultiplier" inputMode="decimal" autoComplete="off" value={multiplier} onChange={(e) => setMultiplier(e.target.value)} />
          )}
        </Field>
        <Field label="Фильтр моделей" hint="Необязательно: часть идентификатора, например openai/" error={errors.filter}>
          {(props) => <input {...props} name="importFilter" value={filter} onChange={(e) => setFilter(e.target.value)} spellCheck={false} />}
        </Field>
        <div className="actions">
          <Button type="submit" pending={load.isPending} pendingText="Считаем…">
            Показать цены
          </Button>
        </div>
      </form>
      <AdminError error={apiError(load.error)} />

      <div role="status" aria-live="polite">
        {preview ? (
          <p>
            Моделей с ценой: {formatInt(rows.length)}, множитель {formatExact(preview.multiplier)}. Отмечено: {formatInt(selected.size)}.
          </p>
        ) : null}
        {result ? (
          <p className="success" data-testid="import-result">
            Сохранено цен: {formatInt(result.imported.length)}
            {result.skipped.length > 0 ? `, пропущено: ${formatInt(result.skipped.length)}` : ''}.
          </p>
        ) : null}
      </div>
      {result ? <SkippedList skipped={result.skipped} /> : null}

      {preview ? (
        <>
          {rows.length > 0 ? (
            <div className="table-wrap import-preview">
              <table className="stack-table" data-testid="import-preview">
                <thead>
                  <tr>
                    <th scope="col">
                      <input
                        id={allId}
                        type="checkbox"
                        className="check"
                        checked={allChecked}
                        aria-label="Отметить все строки"
                        onChange={(e) => setSelected(e.target.checked ? new Set(rows.map((r) => r.model)) : new Set())}
                      />
                    </th>
                    <th scope="col">Модель</th>
                    <th scope="col" className="num">
                      У провайдера за 1M, $ (запрос / ответ)
                    </th>
                    <th scope="col" className="num">
                      Наша цена за 1M (запрос / ответ)
                    </th>
                    <th scope="col">Действует сейчас</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => (
                    <tr key={row.model} data-model={row.model}>
                      <td data-label="Сохранить">
                        <input
                          type="checkbox"
                          className="check"
                          checked={selected.has(row.model)}
                          aria-label={`Сохранить цену ${row.model}`}
                          onChange={(e) => toggle(row.model, e.target.checked)}
                        />
                      </td>
                      <td data-label="Модель" className="wrap-anywhere">
                        <code>{row.model}</code>
                      </td>
                      <td data-label="У провайдера" className="num">
                        {upstreamPerMillion(row.upstreamPrompt)} / {upstreamPerMillion(row.upstreamCompletion)}
                      </td>
                      <td data-label="Наша цена" className="num">
                        <PerMillionPair prompt={row.promptPerMillion} completion={row.completionPerMillion} currency={currency} />
                      </td>
                      <td data-label="Сейчас">
                        {row.current ? (
                          <>
                            <PerMillionPair prompt={row.current.promptPerMillion} completion={row.current.completionPerMillion} currency={currency} />{' '}
                            <span className="muted">
                              (<code>{row.current.pattern}</code>)
                            </span>
                          </>
                        ) : (
                          <span className="muted">по умолчанию</span>
                        )}
                        {same(row) ? <span className="muted"> — без изменений</span> : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p className="muted">Нет моделей с ценой{filter.trim() ? ' по этому фильтру' : ''}.</p>
          )}
          <SkippedList skipped={preview.skipped} />
          <div className="actions">
            <Button onClick={onSave} pending={save.isPending} pendingText="Сохраняем…" disabled={selected.size === 0}>
              Сохранить отмеченные ({formatInt(selected.size)})
            </Button>
            <Button variant="secondary" onClick={() => setPreview(null)} disabled={save.isPending}>
              Отменить импорт
            </Button>
          </div>
          <AdminError error={saveError} />
        </>
      ) : null}
    </section>
  );
}
