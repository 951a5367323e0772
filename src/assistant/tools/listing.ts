// The agent page's view of the tools: what every registered provider offers this agent and what it
// lacks, in one list each (a tool offered by one provider is not also listed as missing).
import type { Agent } from '../../agents/service';
import type { ToolProvider } from './types';

export async function describeTools(providers: readonly ToolProvider[], agent: Agent) {
  const all = await Promise.all(providers.map((p) => p.toolsFor(agent)));
  const tools = all.flatMap((a) => a.tools).map((t) => ({ name: t.name, description: t.description }));
  const offered = new Set(tools.map((t) => t.name));
  const missing = all.flatMap((a) => a.missing).filter((m) => !offered.has(m.name));
  return { tools, missing };
}
