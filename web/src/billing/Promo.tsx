// «Промокод» on the balance card: the person types a code, the campaign's amount lands on the balance and the
// answer says how much and what the balance is now; a refusal (unknown, expired, used, already activated, too
// many attempts) is the server's Russian message under the field. Shown where top-ups are: to a person, and in
// an organisation to its owner and accountant (the server's money line).
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { redeemInput } from '@server/promotions/input';
import { answerOf, useRefusal, useTRPC } from '../app/trpc';
import { Money } from '../shared/Money';
import { Button, ErrorText, Field } from '../shared/ui';
import { check } from '../shared/validate';

/** `balance`: the balance the server counted right after the credit. */
export function PromoPanel({ onRedeemed }: { onRedeemed(balance: number): void }) {
  const trpc = useTRPC();
  const redeem = useMutation(trpc.promo.redeem.mutationOptions());
  const [refusal, refuse] = useRefusal(redeem);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = check(redeemInput, { code });
    if (!checked.ok) {
      setError(checked.errors.code ?? checked.message);
      return;
    }
    setError(undefined);
    const answer = await answerOf(redeem.mutateAsync({ code }));
    if (!answer) return;
    setCode('');
    onRedeemed(answer.balance);
  };

  return (
    <div className="promo">
      <form className="inline-form" onSubmit={onSubmit} noValidate aria-label="Промокод" data-testid="promo-form">
        <Field label="Промокод" hint="Регистр, пробелы и дефисы не важны" error={error}>
          {(props) => (
            <input
              {...props}
              name="promoCode"
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              maxLength={64}
              value={code}
              onChange={(e) => {
                setCode(e.target.value);
                if (refusal) refuse(undefined);
              }}
            />
          )}
        </Field>
        <div className="actions">
          <Button type="submit" variant="secondary" pending={redeem.isPending} pendingText="Проверяем…">
            Активировать
          </Button>
        </div>
      </form>
      <ErrorText error={refusal} />
      {redeem.data && !refusal ? (
        <p className="success" role="status" aria-live="polite" data-testid="promo-result">
          Промокод акции «{redeem.data.campaign}» активирован: зачислено <Money value={redeem.data.amount} currency={redeem.data.currency} kind="amount" />, баланс{' '}
          <Money value={redeem.data.balance} currency={redeem.data.currency} kind="amount" />.
        </p>
      ) : null}
    </div>
  );
}
