// Which tools the agent's model gets now, and what the owner still has to add for the others
// («Подключите YCLIENTS», «Добавьте товары в каталог»), from GET /api/v1/agents/:agentId/tools. Each tool
// by its Russian name and what it does (tool-names.ts); its id, which a prompt may name, on hover.
import { useQuery } from '@tanstack/react-query';
import { apiError, useTRPC } from '../app/trpc';
import { Button, ErrorText, Loading } from '../shared/ui';
import { toolName } from './tool-names';

export function AgentTools({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const tools = useQuery(trpc.assistant.tools.queryOptions({ agentId }));
  return (
    <section className="card" aria-labelledby="tools-title" data-testid="agent-tools">
      <div className="section-head">
        <h2 id="tools-title">Инструменты ассистента</h2>
        <Button variant="secondary" onClick={() => void tools.refetch()} pending={tools.isFetching} pendingText="Обновляем…">
          Обновить
        </Button>
      </div>
      <p className="muted">Что модель агента может делать сама, отвечая клиентам, и чего не хватает для остального.</p>
      <ErrorText error={apiError(tools.error)} />
      {tools.isPending ? <Loading /> : null}
      {tools.data ? (
        <>
          {tools.data.tools.length === 0 ? <p className="muted">Пока модель только отвечает текстом.</p> : null}
          <ul className="tool-list" data-testid="agent-tools-available">
            {tools.data.tools.map((t) => (
              <li key={t.name} data-tool={t.name}>
                <span className="badge badge-ok" title={t.name}>
                  {toolName(t.name).title}
                </span>{' '}
                <span className="hint">{toolName(t.name).description}</span>
              </li>
            ))}
          </ul>
          {tools.data.missing.length > 0 ? (
            <>
              <h3>Недоступны</h3>
              <ul className="tool-list" data-testid="agent-tools-missing">
                {tools.data.missing.map((m) => (
                  <li key={m.name} data-tool={m.name}>
                    <span className="badge badge-off" title={m.name}>
                      {toolName(m.name).title}
                    </span>{' '}
                    {m.reason}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
