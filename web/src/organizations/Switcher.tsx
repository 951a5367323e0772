// The account switcher in the shell's header: «Личный» and each organisation the person belongs to, with
// their role in it. The shell (app/App.tsx) owns the choice; this only shows it and asks for a change.
import { useId } from 'react';
import type { OrganizationSummary } from './client';
import { PERSONAL_LABEL, roleLabels } from './texts';

export function AccountSwitcher({
  organizations,
  chosen,
  onChoose,
}: {
  organizations: readonly OrganizationSummary[];
  chosen: string | null;
  onChoose(id: string | null): void;
}) {
  const id = useId();
  return (
    <span className="account-switcher">
      <label htmlFor={id} className="visually-hidden">
        Аккаунт
      </label>
      <select id={id} data-testid="account-switcher" value={chosen ?? ''} onChange={(e) => onChoose(e.target.value || null)}>
        <option value="">{PERSONAL_LABEL}</option>
        {organizations.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name} — {roleLabels[o.role]}
          </option>
        ))}
      </select>
    </span>
  );
}
