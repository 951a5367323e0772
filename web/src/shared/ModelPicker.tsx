// The model field of an agent: the ids /v1/models lists are offered as suggestions, any other text is
// still accepted (a model the catalog does not know yet), with a warning that it may not answer.
import { useEffect, useId, useState, type InputHTMLAttributes } from 'react';
import { loadModels } from './models';

export function ModelInput({
  value,
  onChange,
  ...props
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'list'> & { value: string; onChange(value: string): void }) {
  const listId = useId();
  const [ids, setIds] = useState<string[] | null>(null);
  useEffect(() => {
    let live = true;
    loadModels().then(
      (list) => live && setIds(list.map((m) => m.id)),
      () => live && setIds(null),
    );
    return () => {
      live = false;
    };
  }, []);
  const unknown = ids !== null && ids.length > 0 && value.trim() !== '' && !ids.includes(value.trim());
  return (
    <>
      <input {...props} value={value} onChange={(e) => onChange(e.target.value)} list={listId} autoComplete="off" />
      <datalist id={listId}>
        {(ids ?? []).map((id) => (
          <option key={id} value={id} />
        ))}
      </datalist>
      {unknown ? (
        <p className="hint model-warning" role="status" data-testid="model-unknown">
          Этой модели нет в списке /v1/models: сохранить можно, но запросы к ней могут не пройти.
        </p>
      ) : null}
    </>
  );
}
