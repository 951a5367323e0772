// The invitation (/app#/invite/<token>, then /app/invite once read): which organisation invites, as what,
// and to which address (POST /api/organizations/invites/preview — the token is a secret, so never in a
// query string); «Принять» joins (POST …/invites/accept) and switches the dashboard to the organisation.
// Opening the link changes nothing: only the button does.
import { useMutation, useQuery } from '@tanstack/react-query';
import { navigate } from '../app/router';
import { apiError } from '../app/trpc';
import { formatDateTime } from '../shared/format';
import { Button, ErrorText, Loading } from '../shared/ui';
import { organizationsApi, type OrganizationView } from './client';
import { clearPendingInvite, pendingInvite } from './invite-token';
import { roleHints, roleLabels } from './texts';

export function InviteScreen({ onJoined }: { onJoined(organization: OrganizationView): void }) {
  const token = pendingInvite();
  const preview = useQuery({
    queryKey: ['organizations', 'invite', token],
    queryFn: () => organizationsApi.previewInvite(token!),
    enabled: token !== null,
  });
  const accept = useMutation({ mutationFn: () => organizationsApi.acceptInvite(token!) });
  const leave = () => {
    clearPendingInvite();
    navigate('/', true);
  };
  const onAccept = async () => {
    const joined = await accept.mutateAsync().catch(() => undefined);
    if (!joined) return;
    clearPendingInvite();
    onJoined(joined);
  };

  return (
    <section className="card invite" aria-labelledby="invite-title" data-testid="invite">
      <h1 id="invite-title">Приглашение в организацию</h1>
      {token === null ? (
        <p>Приглашение не найдено: откройте ссылку из письма ещё раз.</p>
      ) : preview.isPending ? (
        <Loading />
      ) : preview.data ? (
        <>
          <p className="invite-offer" data-testid="invite-offer">
            Вас приглашают в «{preview.data.organization.name}» как {roleLabels[preview.data.role].toLowerCase()}.
          </p>
          <p className="hint">
            Роль «{roleLabels[preview.data.role]}»: {roleHints[preview.data.role]}. Приглашение отправлено на {preview.data.email} и действует до{' '}
            {formatDateTime(preview.data.expiresAt)}.
          </p>
          <div className="actions">
            <Button onClick={onAccept} pending={accept.isPending} pendingText="Присоединяемся…">
              Принять
            </Button>
            <Button variant="secondary" onClick={leave}>
              Не сейчас
            </Button>
          </div>
          <ErrorText error={apiError(accept.error)} />
        </>
      ) : (
        <>
          <ErrorText error={apiError(preview.error)} />
          <Button variant="secondary" onClick={leave}>
            На главную
          </Button>
        </>
      )}
    </section>
  );
}
