// A sum of money as the dashboard shows it: with the balance currency, rounded for reading (two decimals
// for balances, three significant digits for tiny costs), and every digit the server keeps on hover.
import { formatBalance, formatCost, formatExactAmount } from './format';

export function Money({ value, currency, kind = 'cost', testId }: { value: number; currency: string | undefined; kind?: 'balance' | 'cost'; testId?: string }) {
  const shown = kind === 'balance' ? formatBalance(value, currency) : formatCost(value, currency);
  const exact = formatExactAmount(value, currency);
  return (
    <span className="money" title={exact === shown ? undefined : `Точно: ${exact}`} data-testid={testId} data-exact={value}>
      {shown}
    </span>
  );
}
