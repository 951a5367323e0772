// Agents: the list and the creation form. Each agent's own page holds its settings and integrations.
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useState, type FormEvent } from 'react';
import { AGENT_TYPES, createAgentInput, type AgentType } from '@server/agents/fields';
import { PROMPT_TEMPLATES } from '@server/agents/templates';
import { Button, ErrorText, Field, Loading } from '../shared/ui';
import { AgentIntegrations } from './AgentIntegrations';
import { ModelName } from '../shared/ModelName';
import { ModelPicker } from '../shared/ModelPicker';
import { useBillingConfig } from '../shared/billing-config';
import { formatDateTime } from '../shared/format';
import { Link, navigate } from '../app/router';
import { agentTypeLabels, agentTypeShort } from '../shared/texts';
import { check, type FieldErrors, withServerErrors } from '../shared/validate';
import { setupHints } from './setup-hints';

/** Empty optional fields are left out, so the server applies its defaults. */
export const optional = (value: string) => (value.trim() === '' ? undefined : value);

export function AgentsScreen() {
  const trpc = useTRPC();
  const agents = useQuery(trpc.agents.list.queryOptions());
  const [name, setName] = useState('');
  const [type, setType] = useState<AgentType>('service');
  // Starts from the type's template, as the server would fill it in; the owner edits it here or later.
  const [systemPrompt, setSystemPrompt] = useState(PROMPT_TEMPLATES.service);
  const [model, setModel] = useState('');
  const currency = useBillingConfig().data?.currency;
  const [errors, setErrors] = useState<FieldErrors>({});
  const create = useMutation(trpc.agents.create.mutationOptions());
  const shown = withServerErrors(errors, apiError(create.error));

  const onCreate = async (event: FormEvent) => {
    event.preventDefault();
    const checked = check(createAgentInput, { name, type, systemPrompt, model: optional(model) });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const agent = await answerOf(create.mutateAsync(checked.data));
    if (agent) navigate(`/agents/${agent.id}`);
  };

  return (
    <>
      <div className="page-head">
        <h1>Агенты</h1>
      </div>

      <section className="card" aria-labelledby="agents-title">
        <h2 id="agents-title">Ваши агенты</h2>
        <ErrorText error={apiError(agents.error)} />
        {agents.isPending ? <Loading /> : null}
        {agents.data && agents.data.agents.length === 0 ? <p className="muted">Агентов пока нет: создайте первого ниже.</p> : null}
        {agents.data && agents.data.agents.length > 0 ? (
          <ul className="agent-list">
            {agents.data.agents.map((agent) => (
              <li key={agent.id}>
                <Link to={`/agents/${agent.id}`}>{agent.name}</Link>
                <span className="badge">{agentTypeShort[agent.type]}</span>
                <span className="muted">
                  <ModelName model={agent.model} /> · создан {formatDateTime(agent.createdAt)}
                </span>
                <AgentIntegrations agentId={agent.id} type={agent.type} />
              </li>
            ))}
          </ul>
        ) : null}
      </section>

      <section className="card" aria-labelledby="new-agent-title">
        <h2 id="new-agent-title">Новый агент</h2>
        <form onSubmit={onCreate} noValidate>
          <Field label="Имя" error={shown.name}>
            {(props) => <input {...props} name="agentName" value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <Field label="Тип" hint="Тип задаёт доступные интеграции и не меняется после создания" error={shown.type}>
            {(props) => (
              <select
                {...props}
                name="agentType"
                value={type}
                onChange={(e) => {
                  const next = e.target.value as AgentType;
                  // An untouched template (or an empty prompt) follows the type; the owner's own text stays.
                  if (systemPrompt.trim() === '' || systemPrompt === PROMPT_TEMPLATES[type]) setSystemPrompt(PROMPT_TEMPLATES[next]);
                  setType(next);
                }}
              >
                {AGENT_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {agentTypeLabels[t]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Системный промпт" hint={`${setupHints.systemPrompt} ${setupHints.systemPromptTemplate}`} error={shown.systemPrompt}>
            {(props) => <textarea {...props} name="systemPrompt" rows={10} value={systemPrompt} onChange={(e) => setSystemPrompt(e.target.value)} />}
          </Field>
          <Field label="Модель" hint={`Необязательно. ${setupHints.model}`} error={shown.model}>
            {(props) => <ModelPicker {...props} name="model" value={model} onChange={setModel} currency={currency} emptyLabel="По умолчанию" />}
          </Field>
          <div className="actions">
            <Button type="submit" pending={create.isPending} pendingText="Создаём…">
              Создать агента
            </Button>
          </div>
          <ErrorText error={apiError(create.error)} />
        </form>
      </section>
    </>
  );
}
