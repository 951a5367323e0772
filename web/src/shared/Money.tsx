// A sum of money as the dashboard shows it: through the one money formatter (src/money.ts), rounded as its
// kind says (two decimals for amounts and prices per 1M tokens, three significant digits for a tiny cost), and
// every digit the server keeps on hover.
import { formatMoney, type MoneyKind } from './format';

export function Money({ value, currency, kind = 'cost', testId }: { value: number; currency: string | undefined; kind?: MoneyKind; testId?: string }) {
  const shown = formatMoney(value, currency, kind);
  const exact = formatMoney(value, currency, 'exact');
  return (
    <span className="money" title={exact === shown ? undefined : `Точно: ${exact}`} data-testid={testId} data-exact={value}>
      {shown}
    </span>
  );
}
