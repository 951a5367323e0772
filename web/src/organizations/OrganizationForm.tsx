// The organisation's name and requisites, as the creation form and the requisites form both ask them: the
// name, ИНН, КПП, ОГРН and legal address; the bank's name, БИК and accounts are optional. The server checks
// every field (digits and their count) and names each one at fault; the form checks first with the same
// schema (src/organizations/input.ts), and either's message shows under its field.
import { useState, type FormEvent } from 'react';
import type { ApiError } from '../app/api';
import { Field, SubmitRow } from '../shared/ui';
import { organizationInput } from '@server/organizations/input';
import { check, type FieldErrors, withServerErrors } from '../shared/validate';
import type { OrganizationInput, OrganizationRequisites } from './client';

export type OrganizationFormValues = { name: string } & OrganizationRequisites;

export const EMPTY_ORGANIZATION: OrganizationFormValues = {
  name: '',
  companyName: '',
  inn: '',
  kpp: '',
  ogrn: '',
  address: '',
  bankName: '',
  bik: '',
  account: '',
  correspondentAccount: '',
};

type TextField = Exclude<keyof OrganizationFormValues, 'companyName'>;

const FIELDS: readonly { name: TextField; label: string; hint?: string; numeric?: true; autoComplete?: string }[] = [
  { name: 'name', label: 'Название организации', hint: 'Как в документах: ООО «Ромашка»', autoComplete: 'organization' },
  { name: 'inn', label: 'ИНН', hint: '10 цифр у организации, 12 у ИП', numeric: true },
  { name: 'kpp', label: 'КПП', hint: '9 цифр; у ИП оставьте пустым', numeric: true },
  { name: 'ogrn', label: 'ОГРН', hint: '13 цифр у организации, ОГРНИП — 15', numeric: true },
  { name: 'address', label: 'Юридический адрес', autoComplete: 'street-address' },
  { name: 'bankName', label: 'Банк', hint: 'Необязательно' },
  { name: 'bik', label: 'БИК', hint: 'Необязательно; 9 цифр', numeric: true },
  { name: 'account', label: 'Расчётный счёт', hint: 'Необязательно; 20 цифр', numeric: true },
  { name: 'correspondentAccount', label: 'Корреспондентский счёт', hint: 'Необязательно; 20 цифр', numeric: true },
];

/** What the API takes: optional fields left empty are not sent. */
export function toOrganizationInput(values: OrganizationFormValues): OrganizationInput {
  const optional = (value: string) => (value.trim() === '' ? undefined : value.trim());
  return {
    name: values.name.trim(),
    inn: values.inn.trim(),
    kpp: optional(values.kpp),
    ogrn: values.ogrn.trim(),
    address: values.address.trim(),
    bankName: optional(values.bankName),
    bik: optional(values.bik),
    account: optional(values.account),
    correspondentAccount: optional(values.correspondentAccount),
  };
}

export function OrganizationForm({
  initial,
  submitLabel,
  pending,
  error,
  readOnly = false,
  onSubmit,
}: {
  initial: OrganizationFormValues;
  submitLabel: string;
  pending: boolean;
  error: ApiError | undefined;
  readOnly?: boolean;
  /** Resolves true once saved. */
  onSubmit(values: OrganizationFormValues): Promise<boolean>;
}) {
  const [form, setForm] = useState(initial);
  const [done, setDone] = useState(false);
  const [local, setLocal] = useState<FieldErrors>({});
  const errors = withServerErrors(local, error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    const checked = check(organizationInput, toOrganizationInput(form));
    setLocal(checked.ok ? {} : checked.errors);
    if (checked.ok) setDone(await onSubmit(form));
  };
  return (
    <form onSubmit={submit} noValidate data-testid="organization-form">
      <div className="grid">
        {FIELDS.map((f) => (
          <Field key={f.name} label={f.label} hint={readOnly ? undefined : f.hint} error={errors[f.name]}>
            {(props) => (
              <input
                {...props}
                name={f.name}
                readOnly={readOnly}
                inputMode={f.numeric ? 'numeric' : undefined}
                autoComplete={f.autoComplete ?? 'off'}
                value={form[f.name]}
                onChange={(e) => setForm({ ...form, [f.name]: e.target.value })}
              />
            )}
          </Field>
        ))}
      </div>
      {readOnly ? null : (
        <SubmitRow
          label={submitLabel}
          pending={pending}
          done={done}
          error={Object.keys(local).length > 0 ? { message: '', type: 'invalid_request_error', fields: local as Record<string, string> } : error}
        />
      )}
    </form>
  );
}
