// What each model costs, as model catalogues list prices: per 1 million tokens of the request (input) and of
// the answer (output), in the balance currency, from /v1/models as the signed-in account sees it (its price
// group's prices, issue 45).
import { useEffect, useState } from 'react';
import { shiftDecimal } from './format';
import { Money } from './Money';
import { loadModels, type ListedModel } from './models';
import { ModelName } from './ModelName';

/** A per-token decimal string as the price of 1M tokens, every digit kept: "0.000000125" → 0.125. */
const perMillion = (perToken: string | undefined) => (perToken === undefined ? undefined : Number(shiftDecimal(perToken, 6)));

export function ModelPrices({ currency }: { currency: string | undefined }) {
  const [models, setModels] = useState<ListedModel[] | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    loadModels().then(
      (list) => live && setModels(list),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, []);
  // Rounded to the kopeck as every price on the dashboard, every digit on hover.
  const price = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '—' : <Money value={value} currency={currency} kind="amount" />);
  return (
    <section className="card" aria-labelledby="prices-title">
      <h2 id="prices-title">Цены моделей</h2>
      <p className="hint">За 1 млн токенов: отдельно токены запроса (вход) и ответа (выход); модели распознавания речи — за минуту аудио (оплата посекундная).</p>
      {failed ? <p className="error">Список моделей сейчас недоступен.</p> : null}
      {models && models.length === 0 ? <p className="muted">Список моделей пуст.</p> : null}
      {models && models.length > 0 ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="model-prices">
            <thead>
              <tr>
                <th scope="col">Модель</th>
                <th scope="col" className="num">
                  Вход, за 1 млн токенов
                </th>
                <th scope="col" className="num">
                  Выход, за 1 млн токенов
                </th>
              </tr>
            </thead>
            <tbody>
              {models.map((m) => (
                <tr key={m.id}>
                  <td>
                    <strong>
                      <ModelName model={m.id} />
                    </strong>
                  </td>
                  {m.pricing?.audio_second !== undefined ? (
                    // Billed by the second of audio: shown a minute, as the providers list it.
                    <td className="num" colSpan={2} data-label="Цена" data-testid="price-per-minute">
                      {price(Number(m.pricing.audio_second) * 60)} за минуту аудио
                    </td>
                  ) : (
                    <>
                      <td className="num" data-label="Вход, за 1 млн токенов">
                        {price(perMillion(m.pricing?.prompt))}
                      </td>
                      <td className="num" data-label="Выход, за 1 млн токенов">
                        {price(perMillion(m.pricing?.completion))}
                      </td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
