// The model of an agent, picked from the catalogue (the public model list with the prices Conduit charges)
// with each model's price per 1 000 tokens in the balance currency, so an owner chooses by name and cost
// instead of typing an id. A model the catalogue does not list (set earlier, or by the API) stays selectable,
// marked as such; with the catalogue unreachable the field falls back to typing the id.
import { useEffect, useState, type SelectHTMLAttributes } from 'react';
import { formatMoney } from './format';
import { loadModels, type ListedModel } from './models';

/** A per-token decimal string as the price of 1 000 tokens, or null when the catalogue gives none. */
const perThousand = (perToken: string | undefined) => {
  const value = perToken === undefined ? Number.NaN : Number(perToken) * 1000;
  return Number.isFinite(value) ? value : null;
};

/** «запрос 0,15 ₽ · ответ 0,60 ₽ за 1 000 токенов». */
export function priceText(model: ListedModel, currency: string | undefined): string {
  const second = model.pricing?.audio_second === undefined ? Number.NaN : Number(model.pricing.audio_second);
  // A transcription model: a minute of audio reads better than a second's fraction of a kopeck.
  if (Number.isFinite(second)) return `${formatMoney(second * 60, currency, 'cost')} за минуту аудио`;
  const prompt = perThousand(model.pricing?.prompt);
  const completion = perThousand(model.pricing?.completion);
  if (prompt === null && completion === null) return 'цена не указана';
  const money = (v: number | null) => (v === null ? '—' : formatMoney(v, currency, 'cost'));
  return `запрос ${money(prompt)} · ответ ${money(completion)} за 1 000 токенов`;
}

export function ModelPicker({
  value,
  onChange,
  currency,
  emptyLabel,
  ...props
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'onChange'> & {
  value: string;
  onChange(value: string): void;
  currency: string | undefined;
  /** With it, a first choice that leaves the model to the server's default. */
  emptyLabel?: string;
}) {
  const [models, setModels] = useState<ListedModel[] | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    loadModels({ forOrganization: false }).then(
      (list) => live && setModels(list),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, []);
  if (failed) {
    return (
      <>
        <input {...(props as object)} value={value} onChange={(e) => onChange(e.target.value)} autoComplete="off" />
        <p className="hint model-warning" role="status" data-testid="model-catalogue-failed">
          Список моделей сейчас недоступен: введите идентификатор модели вида «владелец/модель».
        </p>
      </>
    );
  }
  const chosen = value.trim();
  const listed = models?.find((m) => m.id.toLowerCase() === chosen.toLowerCase());
  const unlisted = models !== null && chosen !== '' && !listed;
  return (
    <>
      <select
        {...props}
        value={listed?.id ?? chosen}
        onChange={(e) => onChange(e.target.value)}
        disabled={models === null || props.disabled}
        data-testid="model-picker"
      >
        {models === null ? <option value={chosen}>{chosen || 'Загружаем список моделей…'}</option> : null}
        {models !== null && emptyLabel !== undefined ? <option value="">{emptyLabel}</option> : null}
        {unlisted ? <option value={chosen}>{chosen} — нет в каталоге</option> : null}
        {(models ?? []).map((m) => (
          <option key={m.id} value={m.id}>
            {m.id} — {priceText(m, currency)}
          </option>
        ))}
      </select>
      {listed ? (
        <p className="hint" data-testid="model-price">
          <span className="model-name">{listed.id}</span>: {priceText(listed, currency)}
        </p>
      ) : null}
      {unlisted ? (
        <p className="hint model-warning" role="status" data-testid="model-unknown">
          Этой модели нет в каталоге: запросы к ней могут не пройти. Выберите модель из списка.
        </p>
      ) : null}
    </>
  );
}
