// The tools an agent's model is offered: the families (escalation, booking, shop, knowledge…) combined.
// Each family decides for itself whether an agent gets its tools; the registry only puts them together,
// so a new family plugs in with one more provider where the assistant is composed.
import type { Agent } from '../../agents';
import { AppError } from '../../http/errors';
import type { Logger } from '../../logger';
import type { DialogueRow } from '../flow';
import { toolTexts } from './texts';
import type { AssistantTool, MissingTool, ToolContext, ToolProvider, ToolResult } from './types';

/** A tool's refusal the model can act on (bad or missing arguments, an id it made up): its message is the result. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

export interface OfferedTools {
  tools: AssistantTool[];
  missing: MissingTool[];
}

export function createToolRegistry(providers: ToolProvider[], logger: Logger) {
  return {
    /** The agent's tools in the providers' order; a name offered twice keeps its first tool. */
    async toolsFor(agent: Agent): Promise<OfferedTools> {
      const tools: AssistantTool[] = [];
      const missing: MissingTool[] = [];
      const names = new Set<string>();
      for (const provider of providers) {
        let offered: OfferedTools;
        try {
          offered = await provider.toolsFor(agent);
        } catch (error) {
          // One family that cannot tell (its settings unreadable) must not silence the assistant.
          logger.warn('a tool family could not list its tools; the turn goes without them', { agentId: agent.id, error });
          continue;
        }
        for (const tool of offered.tools) {
          if (names.has(tool.name)) continue;
          names.add(tool.name);
          tools.push(tool);
        }
        missing.push(...offered.missing);
      }
      return { tools, missing: missing.filter((m) => !names.has(m.name)) };
    },

    /** What the families know of the dialogue's client, in the providers' order; a family that fails adds nothing. */
    async clientFacts(agent: Agent, dialogue: DialogueRow): Promise<string[]> {
      const facts: string[] = [];
      for (const provider of providers) {
        if (!provider.clientFacts) continue;
        try {
          facts.push(...(await provider.clientFacts(agent, dialogue)));
        } catch (error) {
          logger.warn('a tool family could not tell what it knows of the client', { agentId: agent.id, error });
        }
      }
      return facts;
    },
  };
}

export type ToolRegistry = ReturnType<typeof createToolRegistry>;

/**
 * Runs one call of the model: whatever goes wrong — a tool it made up, arguments that are not JSON, a
 * refusal, an integration failing — becomes a result `{error}` the model reads, never an exception.
 */
export async function runToolCall(tools: AssistantTool[], call: { name: string; arguments: string }, ctx: ToolContext, logger: Logger): Promise<ToolResult> {
  const failed = (message: string): ToolResult => ({ result: { error: message }, summary: toolTexts.summaryError(message) });
  if (call.name === '') return failed(toolTexts.namelessCall(tools.map((t) => t.name)));
  const tool = tools.find((t) => t.name === call.name);
  if (!tool)
    return failed(
      toolTexts.unknownTool(
        call.name,
        tools.map((t) => t.name),
      ),
    );
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return failed(toolTexts.argumentsNotJson);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return failed(toolTexts.argumentsNotJson);
  try {
    return await tool.run(args as Record<string, unknown>, ctx);
  } catch (error) {
    if (error instanceof ToolError) return failed(error.message);
    // Our own refusals (a booking YCLIENTS rejects, a slot taken) carry a Russian message meant to be read.
    if (error instanceof AppError && error.status < 500 && error.type !== 'internal_error') return failed(error.message);
    logger.warn('assistant tool failed', { agentId: ctx.agent.id, tool: call.name, requestId: ctx.requestId, error });
    return failed(toolTexts.toolFailed);
  }
}

/** A string argument: trimmed; absent or empty → undefined, unless required (then the model is told). */
export function stringArg(args: Record<string, unknown>, field: string, required: true): string;
export function stringArg(args: Record<string, unknown>, field: string, required?: false): string | undefined;
export function stringArg(args: Record<string, unknown>, field: string, required = false): string | undefined {
  const value = args[field];
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    if (required) throw new ToolError(toolTexts.required(field));
    return undefined;
  }
  // Ids the model writes as numbers (YCLIENTS' own ids are numbers) are taken as their text.
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') throw new ToolError(toolTexts.notString(field));
  return value.trim();
}
