// Which integrations an agent has, for the agents list: asked from each integration's own settings read
// (the same answers its settings card shows), so the list says no more than the agent page does.
import { useQuery } from '@tanstack/react-query';
import type { TRPCClient } from '@trpc/client';
import type { AppRouter } from '@server/trpc/router';
import { useTRPCClient } from '../app/trpc';
import type { AgentType } from '@server/agents/fields';

interface Connected {
  name: string;
  /** False: saved, but not (yet) checked against the service. */
  verified: boolean;
}

async function loadIntegrations(api: TRPCClient<AppRouter>, agentId: string, type: AgentType): Promise<Connected[]> {
  const [social, messenger, booking] = await Promise.all([
    api.social.getSettings.query({ agentId }),
    api.messenger.getSettings.query({ agentId }),
    type === 'service' ? api.booking.getSettings.query({ agentId }) : Promise.resolve(null),
  ]);
  const found: Connected[] = [];
  if (social.configured) found.push({ name: 'ВКонтакте', verified: social.connection.status === 'connected' });
  if (messenger.configured) found.push({ name: 'Telegram', verified: true });
  if (booking?.configured) found.push({ name: 'YCLIENTS', verified: true });
  return found;
}

export function AgentIntegrations({ agentId, type }: { agentId: string; type: AgentType }) {
  const api = useTRPCClient();
  const integrations = useQuery({ queryKey: ['agent-integrations', agentId, type], queryFn: () => loadIntegrations(api, agentId, type) });
  if (!integrations.data) return null;
  return (
    <span className="agent-integrations" data-testid="agent-integrations">
      {integrations.data.length === 0 ? (
        <span className="muted">Интеграции не подключены</span>
      ) : (
        <>
          <span className="visually-hidden">Интеграции: </span>
          {integrations.data.map((i) => (
            <span key={i.name} className={`badge ${i.verified ? 'badge-ok' : ''}`} title={i.verified ? undefined : 'Сохранено, связь ещё не проверена'}>
              {i.name}
              {i.verified ? '' : ' (не проверено)'}
            </span>
          ))}
        </>
      )}
    </span>
  );
}
