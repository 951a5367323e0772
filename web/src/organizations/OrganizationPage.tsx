// «Организация» (/app/organization). On the personal account: the form that creates an organisation (its
// creator becomes its owner and the dashboard switches to it). In an organisation: its balance and the
// member's role, its requisites (owners and accountants change them), the members (owners and admins), its
// balance alerts (as on «Аккаунт», sent with X-Conduit-Organization),
// «Покинуть организацию», and what was done in it (the audit list, owners and admins).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { AlertsSection } from '../account/Alerts';
import { useActiveOrganization } from '../app/organization';
import { apiError, useTRPC } from '../app/trpc';
import { Money } from '../shared/Money';
import { formatDateTime } from '../shared/format';
import { ConfirmDialog, ErrorText, Loading, Button } from '../shared/ui';
import { organizationKeys, organizationsApi, type OrganizationView } from './client';
import { MembersSection } from './Members';
import { EMPTY_ORGANIZATION, OrganizationForm, toOrganizationInput, type OrganizationFormValues } from './OrganizationForm';
import { auditActionLabels, can, roleHints, roleLabels } from './texts';

function CreateOrganization({ onCreated }: { onCreated(organization: OrganizationView): void }) {
  const create = useMutation({ mutationFn: (values: OrganizationFormValues) => organizationsApi.create(toOrganizationInput(values)) });
  return (
    <section className="card" aria-labelledby="create-organization-title" data-testid="create-organization">
      <h2 id="create-organization-title">Создать организацию</h2>
      <p className="hint">
        У организации свой баланс, свои API-ключи и своё использование; пополнять её можно по счёту, документы выписываются на её реквизиты. Вы станете её владельцем
        и сможете пригласить участников. Личный аккаунт и его баланс остаются как есть.
      </p>
      <OrganizationForm
        initial={EMPTY_ORGANIZATION}
        submitLabel="Создать организацию"
        pending={create.isPending}
        error={apiError(create.error)}
        onSubmit={async (values) => {
          const created = await create.mutateAsync(values).catch(() => undefined);
          if (created) onCreated(created);
          return false;
        }}
      />
    </section>
  );
}

function valuesOf(organization: OrganizationView): OrganizationFormValues {
  const r = organization.requisites;
  return {
    ...r,
    name: organization.name,
    kpp: r.kpp ?? '',
    bankName: r.bankName ?? '',
    bik: r.bik ?? '',
    account: r.account ?? '',
    correspondentAccount: r.correspondentAccount ?? '',
  };
}

function RequisitesSection({ organization, editable }: { organization: OrganizationView; editable: boolean }) {
  const queryClient = useQueryClient();
  const update = useMutation({
    mutationFn: (values: OrganizationFormValues) => organizationsApi.update(organization.id, toOrganizationInput(values)),
    onSuccess: (saved) => {
      queryClient.setQueryData(organizationKeys.one(organization.id), saved);
      void queryClient.invalidateQueries({ queryKey: organizationKeys.list });
    },
  });
  return (
    <section className="card" aria-labelledby="organization-requisites-title" data-testid="organization-requisites">
      <h2 id="organization-requisites-title">Реквизиты</h2>
      <p className="hint">По ним выписываются счета на оплату, акты и УПД организации.</p>
      <OrganizationForm
        initial={valuesOf(organization)}
        submitLabel="Сохранить реквизиты"
        readOnly={!editable}
        pending={update.isPending}
        error={apiError(update.error)}
        onSubmit={async (values) => Boolean(await update.mutateAsync(values).catch(() => undefined))}
      />
    </section>
  );
}

function AuditSection({ organizationId }: { organizationId: string }) {
  const audit = useQuery({ queryKey: organizationKeys.audit(organizationId), queryFn: () => organizationsApi.audit(organizationId) });
  return (
    <section className="card" aria-labelledby="organization-audit-title" data-testid="organization-audit">
      <h2 id="organization-audit-title">Журнал действий</h2>
      {audit.isPending ? <Loading /> : null}
      <ErrorText error={apiError(audit.error)} />
      {audit.data ? (
        audit.data.entries.length === 0 ? (
          <p className="muted">Записей пока нет.</p>
        ) : (
          <div className="table-wrap">
            <table className="stack-table">
              <thead>
                <tr>
                  <th scope="col">Когда</th>
                  <th scope="col">Кто</th>
                  <th scope="col">Действие</th>
                  <th scope="col">Подробности</th>
                </tr>
              </thead>
              <tbody>
                {audit.data.entries.map((e, i) => (
                  <tr key={`${e.at}-${i}`}>
                    <td data-label="Когда">{formatDateTime(e.at)}</td>
                    <td data-label="Кто">{e.actorEmail ?? '—'}</td>
                    <td data-label="Действие">{auditActionLabels[e.action] ?? e.action}</td>
                    <td data-label="Подробности" className="muted">
                      {e.detail}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : null}
    </section>
  );
}

/** Any member may leave; their keys in the organisation are revoked. The last owner cannot (the API says so). */
function LeaveSection({ organization, onLeft }: { organization: OrganizationView; onLeft(): void }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const [open, setOpen] = useState(false);
  const leave = useMutation({ mutationFn: (userId: string) => organizationsApi.removeMember(organization.id, userId, { keys: 'revoke' }) });
  return (
    <section className="card" aria-labelledby="leave-title">
      <h2 id="leave-title">Покинуть организацию</h2>
      <p className="hint">Ваши ключи в организации будут отозваны. Вернуться можно только по новому приглашению.</p>
      <Button variant="danger" onClick={() => setOpen(true)} disabled={!me.data}>
        Покинуть организацию
      </Button>
      <ConfirmDialog
        open={open}
        title={`Покинуть «${organization.name}»?`}
        confirmText="Покинуть"
        pending={leave.isPending}
        error={apiError(leave.error)}
        onConfirm={() => void leave.mutateAsync(me.data!.user.id).then(onLeft, () => undefined)}
        onCancel={() => setOpen(false)}
      >
        <p>Ваши ключи в организации будут отозваны.</p>
      </ConfirmDialog>
    </section>
  );
}

export function OrganizationScreen({ onCreated, onLeft }: { onCreated(organization: OrganizationView): void; onLeft(): void }) {
  const active = useActiveOrganization();
  const organization = useQuery({
    queryKey: organizationKeys.one(active?.id ?? ''),
    queryFn: () => organizationsApi.get(active!.id),
    enabled: active !== null,
  });
  if (!active)
    return (
      <>
        <div className="page-head">
          <h1>Организация</h1>
        </div>
        <CreateOrganization onCreated={onCreated} />
      </>
    );
  const data = organization.data;
  return (
    <>
      <div className="page-head">
        <h1>Организация «{active.name}»</h1>
      </div>
      {organization.isPending ? <Loading /> : null}
      <ErrorText error={apiError(organization.error)} />
      {data ? (
        <>
          <section className="card" aria-labelledby="organization-summary-title" data-testid="organization-summary">
            <h2 id="organization-summary-title">Ваша роль: {roleLabels[data.role]}</h2>
            <p className="hint">
              Роль «{roleLabels[data.role]}»: {roleHints[data.role]}.
            </p>
            {can(data.role, 'balance') ? (
              <p>
                Баланс организации: <Money value={data.balance} currency={data.currency} kind="amount" />
              </p>
            ) : null}
          </section>
          <RequisitesSection key={data.id} organization={data} editable={can(data.role, 'requisites')} />
          {can(data.role, 'members') ? <MembersSection organizationId={data.id} caller={data.role} currency={data.currency} /> : null}
          {/* The organisation's low-balance threshold and webhook: its alerts go to its owners and accountants. */}
          {can(data.role, 'balance') ? <AlertsSection /> : null}
          {can(data.role, 'members') ? <AuditSection organizationId={data.id} /> : null}
          <LeaveSection organization={data} onLeft={onLeft} />
        </>
      ) : null}
    </>
  );
}
