// Editor of one YCLIENTS mapping: rows of "our identifier → YCLIENTS numeric id", added and removed
// freely. The rows become the record the settings schema checks. Each row is headed by the name YCLIENTS
// gives that id («Анна Иванова → 901»), and its fields carry visible labels, so on a phone, where they
// stack, each still says what it is.
import { useId } from 'react';
import { Button } from '../shared/ui';

export interface MappingRow {
  key: string;
  internal: string;
  external: string;
}

let rowSeq = 0;
export const newRow = (internal = '', external = ''): MappingRow => ({ key: `row-${++rowSeq}`, internal, external });

export const rowsFrom = (mapping: Record<string, number>): MappingRow[] => Object.entries(mapping).map(([internal, external]) => newRow(internal, String(external)));

/** The rows as the API's record; blank rows are skipped. A repeated identifier is an error, not a silent overwrite. */
export function mappingFrom(rows: MappingRow[], what: string): { mapping: Record<string, string>; error?: string } {
  const mapping: Record<string, string> = {};
  for (const row of rows) {
    const internal = row.internal.trim();
    if (internal === '' && row.external.trim() === '') continue;
    if (internal in mapping) return { mapping, error: `Идентификатор ${what} «${internal}» указан дважды` };
    mapping[internal] = row.external.trim();
  }
  return { mapping };
}

export function MappingEditor({
  title,
  internalLabel,
  externalLabel,
  rows,
  onChange,
  error,
  testId,
  names,
}: {
  title: string;
  internalLabel: string;
  externalLabel: string;
  rows: MappingRow[];
  /** YCLIENTS' names by its numeric id (staff, services), as far as they are loaded. */
  names: ReadonlyMap<number, string>;
  onChange(rows: MappingRow[]): void;
  error?: string | undefined;
  testId: string;
}) {
  const id = useId();
  const update = (key: string, patch: Partial<MappingRow>) => onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  return (
    <fieldset className="mapping" data-testid={testId} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{title}</legend>
      {rows.length === 0 ? <p className="muted">Сопоставлений нет: агент предложит всех из YCLIENTS.</p> : null}
      {rows.map((row, index) => {
        const external = row.external.trim();
        const name = /^\d+$/.test(external) ? names.get(Number(external)) : undefined;
        return (
          <div className="mapping-row" key={row.key} data-testid="mapping-row">
            <p className="mapping-name" data-testid="mapping-name">
              {external === '' ? `Строка ${index + 1}` : name ? `${name} → ${external}` : `${external} — нет в загруженном списке YCLIENTS`}
            </p>
            <label className="mapping-field">
              <span className="label">
                {internalLabel}
                <span className="visually-hidden">, строка {index + 1}</span>
              </span>
              <input value={row.internal} onChange={(e) => update(row.key, { internal: e.target.value })} data-role="internal" />
            </label>
            <label className="mapping-field">
              <span className="label">
                {externalLabel}
                <span className="visually-hidden">, строка {index + 1}</span>
              </span>
              <input value={row.external} inputMode="numeric" onChange={(e) => update(row.key, { external: e.target.value })} data-role="external" />
            </label>
            <Button variant="secondary" aria-label={`Удалить строку ${index + 1}`} onClick={() => onChange(rows.filter((r) => r.key !== row.key))}>
              ✕
            </Button>
          </div>
        );
      })}
      <Button variant="secondary" onClick={() => onChange([...rows, newRow()])}>
        Добавить строку
      </Button>
      {error ? (
        <p className="error" role="alert" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
