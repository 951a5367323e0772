// Members' e-mails by their user id, for screens that name a member (the keys' «Создатель» column): read
// from the members list, which only owners and admins may ask for.
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { organizationKeys, organizationsApi } from './client';

export function useMemberEmails(organizationId: string | null): Map<string, string> {
  const list = useQuery({
    queryKey: organizationKeys.members(organizationId ?? ''),
    queryFn: () => organizationsApi.members(organizationId!),
    enabled: organizationId !== null,
  });
  return useMemo(() => new Map((list.data?.members ?? []).map((m) => [m.userId, m.email])), [list.data]);
}
