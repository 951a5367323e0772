// Prices per 1M tokens as the rest of the dashboard shows money: «15,00 ₽ / 60,00 ₽ за 1 млн токенов»,
// the exact price (to the nano-unit the server keeps) on hover.
import { Money } from '../shared/Money';

export function PerMillionPair({ prompt, completion, currency }: { prompt: number; completion: number; currency: string | undefined }) {
  return (
    <span data-testid="price-pair">
      <Money value={prompt} currency={currency} kind="amount" /> / <Money value={completion} currency={currency} kind="amount" /> за 1 млн токенов
    </span>
  );
}
