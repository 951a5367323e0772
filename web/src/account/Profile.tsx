// «Профиль» at the top of the account page: the e-mail and whether it is confirmed (with the next step
// when it is not), the way to the statement and the closing documents, and the support contact.
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useState } from 'react';
import { Button, ErrorText, Loading } from '../shared/ui';
import { ContactLink, useSupportContact } from '../shared/SupportContact';
import { Link } from '../app/router';

/** The next step for an address not yet confirmed: the link in the mail, or a new mail. */
function VerifyHint() {
  const trpc = useTRPC();
  const resend = useMutation(trpc.auth.resendVerification.mutationOptions());
  const [sent, setSent] = useState<string | null>(null);
  const onResend = async () => {
    setSent(null);
    const result = await answerOf(resend.mutateAsync());
    if (result) setSent(result.message);
  };
  return (
    <div className="notice" data-testid="verify-hint">
      <p>Откройте ссылку из письма, которое пришло на этот адрес. Письма нет — проверьте папку «Спам» или отправьте его ещё раз.</p>
      <div className="actions">
        <Button variant="secondary" onClick={onResend} pending={resend.isPending} pendingText="Отправляем…" data-testid="resend-verification">
          Отправить письмо ещё раз
        </Button>
        {sent ? (
          <span className="success" role="status">
            {sent}
          </span>
        ) : null}
      </div>
      <ErrorText error={apiError(resend.error)} />
    </div>
  );
}

export function ProfileSection() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions(undefined, { select: (answer) => answer.user }));
  const support = useSupportContact();
  return (
    <section className="card" aria-labelledby="profile-title" data-testid="profile">
      <h2 id="profile-title">Профиль</h2>
      {me.isPending ? <Loading /> : null}
      <ErrorText error={apiError(me.error)} />
      {me.data ? (
        <dl className="facts">
          <div>
            <dt>E-mail</dt>
            <dd className="wrap-anywhere" data-testid="profile-email">
              {me.data.email}
            </dd>
          </div>
          <div>
            <dt>Адрес</dt>
            <dd data-testid="profile-email-state">
              {me.data.emailVerified ? <span className="badge badge-ok">подтверждён</span> : <span className="badge badge-off">не подтверждён</span>}
            </dd>
          </div>
        </dl>
      ) : null}
      {me.data && !me.data.emailVerified ? <VerifyHint /> : null}
      <p>
        <Link to="/statement" data-testid="statement-link">
          Выписка и закрывающие документы
        </Link>{' '}
        <span className="muted">— все движения баланса, CSV, счета и акты по месяцам</span>
      </p>
      <p data-testid="profile-support">
        {support ? (
          <>
            Поддержка: <ContactLink text={support} />
          </>
        ) : (
          <span className="muted">Контакт поддержки оператор сервиса не указал.</span>
        )}
      </p>
    </section>
  );
}
