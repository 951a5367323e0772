// The organisation's members (owners and admins only): each with role, monthly limit and what they spent
// this month; the invitation form (e-mail, role, limit), invitations waiting (withdraw), a member's role
// and limit changed in a dialog, and a member removed with their keys revoked or handed to another member.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ORGANIZATION_ROLES, type OrganizationRole } from '@server/keys/types';
import type { ApiError } from '../app/api';
import { apiError } from '../app/trpc';
import { Money } from '../shared/Money';
import { currencySymbol, formatDateTime, formatMoney } from '../shared/format';
import { Button, ConfirmDialog, Dialog, ErrorText, Field, Loading, SubmitRow } from '../shared/ui';
import { decimalInput, decimalText, withServerErrors } from '../shared/validate';
import { organizationKeys, organizationsApi, type Member } from './client';
import { roleLabels } from './texts';

const LIMIT_HINT = 'Необязательно. Сколько участник может потратить ключами организации за календарный месяц; пусто — без лимита.';
const BAD_LIMIT = 'Лимит: укажите сумму числом, например 1500 или 1500,50';

/** The roles the caller may give: an admin never makes an owner. */
const rolesFor = (caller: OrganizationRole) => ORGANIZATION_ROLES.filter((r) => caller === 'owner' || r !== 'owner');

/** A limit field's text as the API takes it: '' → no limit (null); not a number → a refusal to show. */
function limitOf(text: string): { ok: true; value: number | null } | { ok: false } {
  const value = decimalInput(text);
  if (value === undefined) return { ok: true, value: null };
  return Number.isFinite(value) && value >= 0 ? { ok: true, value } : { ok: false };
}

function RoleSelect({ value, roles, onChange }: { value: OrganizationRole; roles: readonly OrganizationRole[]; onChange(role: OrganizationRole): void }) {
  return (
    <Field label="Роль">
      {(props) => (
        <select {...props} name="role" value={value} onChange={(e) => onChange(e.target.value as OrganizationRole)}>
          {roles.map((r) => (
            <option key={r} value={r}>
              {roleLabels[r]}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function InviteForm({ organizationId, caller, currency }: { organizationId: string; caller: OrganizationRole; currency: string }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OrganizationRole>('developer');
  const [limit, setLimit] = useState('');
  const [refused, setRefused] = useState<ApiError>();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const invite = useMutation({
    mutationFn: (input: { email: string; role: OrganizationRole; spendLimit?: number }) => organizationsApi.invite(organizationId, input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.members(organizationId) }),
  });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSentTo(null);
    const spendLimit = limitOf(limit);
    if (!spendLimit.ok) {
      setRefused({ message: BAD_LIMIT, type: 'invalid_request_error', fields: { spendLimit: BAD_LIMIT } });
      return;
    }
    setRefused(undefined);
    const sent = await invite
      .mutateAsync({ email: email.trim(), role, ...(spendLimit.value === null ? {} : { spendLimit: spendLimit.value }) })
      .catch(() => undefined);
    if (sent) {
      setSentTo(sent.email);
      setEmail('');
      setLimit('');
    }
  };
  const error = refused ?? apiError(invite.error);
  const errors = withServerErrors({}, error);
  return (
    <form onSubmit={submit} noValidate data-testid="invite-form" aria-labelledby="invite-form-title">
      <h3 id="invite-form-title">Пригласить участника</h3>
      <div className="grid">
        <Field label="E-mail участника" error={errors.email}>
          {(props) => <input {...props} name="email" type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />}
        </Field>
        <RoleSelect value={role} roles={rolesFor(caller)} onChange={setRole} />
        <Field label={`Лимит в месяц, ${currencySymbol(currency)}`} hint={LIMIT_HINT} error={errors.spendLimit}>
          {(props) => <input {...props} name="spendLimit" inputMode="decimal" autoComplete="off" value={limit} onChange={(e) => setLimit(e.target.value)} />}
        </Field>
      </div>
      <SubmitRow
        label="Отправить приглашение"
        pending={invite.isPending}
        pendingText="Отправляем…"
        done={sentTo !== null}
        doneText={`Приглашение отправлено на ${sentTo ?? ''}: ссылка действует 7 дней`}
        error={error}
      />
    </form>
  );
}

function EditMember({ organizationId, member, caller, onClose }: { organizationId: string; member: Member; caller: OrganizationRole; onClose(): void }) {
  const queryClient = useQueryClient();
  const [role, setRole] = useState(member.role);
  const [limit, setLimit] = useState(member.spendLimit === null ? '' : decimalText(member.spendLimit));
  const [refused, setRefused] = useState<ApiError>();
  const update = useMutation({
    mutationFn: (change: { role?: OrganizationRole; spendLimit: number | null }) => organizationsApi.updateMember(organizationId, member.userId, change),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.members(organizationId) }),
  });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const spendLimit = limitOf(limit);
    if (!spendLimit.ok) {
      setRefused({ message: BAD_LIMIT, type: 'invalid_request_error', fields: { spendLimit: BAD_LIMIT } });
      return;
    }
    setRefused(undefined);
    const saved = await update.mutateAsync({ ...(role === member.role ? {} : { role }), spendLimit: spendLimit.value }).catch(() => undefined);
    if (saved) onClose();
  };
  const error = refused ?? apiError(update.error);
  const errors = withServerErrors({}, error);
  return (
    <Dialog open title={`Участник ${member.email}`} onClose={onClose} closable={!update.isPending} cutTitle testId="member-dialog">
      <form onSubmit={submit} noValidate>
        <RoleSelect value={role} roles={member.role === 'owner' ? ORGANIZATION_ROLES : rolesFor(caller)} onChange={setRole} />
        <Field label="Лимит в месяц" hint={LIMIT_HINT} error={errors.spendLimit}>
          {(props) => <input {...props} name="spendLimit" inputMode="decimal" autoComplete="off" value={limit} onChange={(e) => setLimit(e.target.value)} />}
        </Field>
        <SubmitRow label="Сохранить" pending={update.isPending} done={false} error={error} />
      </form>
    </Dialog>
  );
}

/** Removal: the member's keys in the organisation are revoked, or handed to a member who may hold keys. */
function RemoveMember({ organizationId, member, members, onClose }: { organizationId: string; member: Member; members: Member[]; onClose(): void }) {
  const queryClient = useQueryClient();
  const heirs = members.filter((m) => m.userId !== member.userId && m.role !== 'accountant');
  const [keys, setKeys] = useState<'revoke' | 'transfer'>('revoke');
  const [heir, setHeir] = useState(heirs[0]?.userId ?? '');
  const remove = useMutation({
    mutationFn: () => organizationsApi.removeMember(organizationId, member.userId, keys === 'transfer' ? { keys, transferTo: heir } : { keys }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.members(organizationId) }),
  });
  return (
    <ConfirmDialog
      open
      title={`Удалить ${member.email} из организации?`}
      confirmText="Удалить"
      pending={remove.isPending}
      error={apiError(remove.error)}
      onConfirm={() => void remove.mutateAsync().then(onClose, () => undefined)}
      onCancel={onClose}
    >
      <fieldset className="choices">
        <legend>Ключи участника в организации</legend>
        <label>
          <input type="radio" name="keys" checked={keys === 'revoke'} onChange={() => setKeys('revoke')} /> Отозвать ключи
        </label>
        <label>
          <input type="radio" name="keys" checked={keys === 'transfer'} disabled={heirs.length === 0} onChange={() => setKeys('transfer')} /> Передать ключи
          участнику…
        </label>
        {keys === 'transfer' ? (
          <Field label="Кому передать ключи">
            {(props) => (
              <select {...props} name="transferTo" value={heir} onChange={(e) => setHeir(e.target.value)}>
                {heirs.map((m) => (
                  <option key={m.userId} value={m.userId}>
                    {m.email} ({roleLabels[m.role]})
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
      </fieldset>
    </ConfirmDialog>
  );
}

export function MembersSection({ organizationId, caller, currency }: { organizationId: string; caller: OrganizationRole; currency: string }) {
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: organizationKeys.members(organizationId), queryFn: () => organizationsApi.members(organizationId) });
  const [editing, setEditing] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const withdraw = useMutation({
    mutationFn: (email: string) => organizationsApi.withdrawInvite(organizationId, email),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.members(organizationId) }),
  });
  const members = list.data?.members ?? [];
  // An admin leaves owners alone: the API refuses it, so the buttons are not offered.
  const mayTouch = (m: Member) => caller === 'owner' || m.role !== 'owner';
  return (
    <section className="card" aria-labelledby="members-title" data-testid="organization-members">
      <h2 id="members-title">Участники</h2>
      {list.isPending ? <Loading /> : null}
      <ErrorText error={apiError(list.error)} />
      {list.data ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="members-table">
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Роль</th>
                <th scope="col" className="num">
                  Лимит в месяц
                </th>
                <th scope="col" className="num">
                  Потрачено в этом месяце
                </th>
                <th scope="col">
                  <span className="visually-hidden">Действия</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <tr key={m.userId}>
                  <td data-label="E-mail">{m.email}</td>
                  <td data-label="Роль">{roleLabels[m.role]}</td>
                  <td className="num" data-label="Лимит в месяц">
                    {m.spendLimit === null ? 'без лимита' : <Money value={m.spendLimit} currency={currency} kind="amount" />}
                  </td>
                  <td className="num" data-label="Потрачено в этом месяце">
                    <Money value={m.spentThisMonth} currency={currency} />
                  </td>
                  <td className="row-actions">
                    {mayTouch(m) ? (
                      <>
                        <Button variant="secondary" onClick={() => setEditing(m)} aria-label={`Изменить роль или лимит: ${m.email}`}>
                          Изменить
                        </Button>
                        <Button variant="danger" onClick={() => setRemoving(m)} aria-label={`Удалить из организации: ${m.email}`}>
                          Удалить
                        </Button>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}

      {list.data && list.data.invites.length > 0 ? (
        <>
          <h3>Ждут ответа</h3>
          <ul className="plain-list" data-testid="pending-invites">
            {list.data.invites.map((i) => (
              <li key={i.email}>
                {i.email} — {roleLabels[i.role]}
                {i.spendLimit === null ? '' : `, лимит ${formatMoney(i.spendLimit, currency, 'amount')} в месяц`}, до {formatDateTime(i.expiresAt)}
                {i.invitedBy ? `, пригласил ${i.invitedBy}` : ''}{' '}
                <Button
                  variant="secondary"
                  onClick={() => withdraw.mutate(i.email)}
                  pending={withdraw.isPending && withdraw.variables === i.email}
                  aria-label={`Отозвать приглашение: ${i.email}`}
                >
                  Отозвать
                </Button>
              </li>
            ))}
          </ul>
          <ErrorText error={apiError(withdraw.error)} />
        </>
      ) : null}

      <InviteForm organizationId={organizationId} caller={caller} currency={currency} />
      {editing ? <EditMember organizationId={organizationId} member={editing} caller={caller} onClose={() => setEditing(null)} /> : null}
      {removing ? <RemoveMember organizationId={organizationId} member={removing} members={members} onClose={() => setRemoving(null)} /> : null}
    </section>
  );
}
