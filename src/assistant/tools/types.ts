// The contract between the assistant's model turn and the tools it offers the model. The names and
// arguments of the tools are a contract owners' prompts rely on (decisions.md, third round); each tool
// answers JSON the model reads, and an error the model can act on is a result, never an exception.
import type { Agent } from '../../agents';
import type { DialogueRow } from '../flow';
import type { Reply, ReplyButtons } from '../reply';

/** A JSON Schema object as OpenAI's `tools[].function.parameters` takes it. */
export interface ToolParameters {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
}

/** What a tool knows of the turn it runs in. */
export interface ToolContext {
  agent: Agent;
  dialogue: DialogueRow;
  /** The turn's request id: every model call of the turn is billed under it. */
  requestId: string;
  /** The client's message that started the turn (the text a knowledge search may start from). */
  clientText: string;
}

/**
 * What a tool gives back. `result` is sent to the model as the tool message's JSON content; `summary` is
 * the short Russian line the owner reads in the inbox transcript; `outcome` marks a turn-ending act the
 * caller must finish (escalation asks for a phone or hands over) instead of asking the model again.
 */
export interface ToolResult {
  result: unknown;
  summary: string;
  outcome?: 'escalated' | 'asked_phone' | 'choices_offered';
  /**
   * What the system itself tells the client about an act the tool did (a booking made, moved or
   * cancelled, an order placed with its «Оплатить» button): sent to the client as soon as the tool
   * returns, whatever the model writes after, so the client never depends on the model repeating it.
   */
  announce?: Reply;
  /**
   * The model's own answer with buttons under it (offer_choices): said as the model's words, and the turn
   * ends with it (`outcome`), so the client gets one message, never the buttons and a second text.
   */
  answer?: Reply;
  /**
   * Buttons for the model's next text answer in this turn (find_slots' free times, tappable): they ride on
   * that answer. Null takes back buttons an earlier call left (a search that found nothing); an act the
   * system announces (a booking made) takes them back too.
   */
  answerButtons?: ReplyButtons | null;
}

export interface AssistantTool {
  name: string;
  /** Russian: the model reads it. */
  description: string;
  parameters: ToolParameters;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** A tool this agent does not get, and why (shown on the agent's page: «подключите YCLIENTS»). */
export interface MissingTool {
  name: string;
  reason: string;
}

/**
 * A family of tools (booking, shop, knowledge, escalation): for an agent, the tools it offers now and
 * the ones it would offer once the owner connects what is missing.
 */
export interface ToolProvider {
  toolsFor(agent: Agent): Promise<{ tools: AssistantTool[]; missing: MissingTool[] }>;
  /**
   * What this family knows of the dialogue's client (upcoming visits, unpaid orders), one Russian line each,
   * for the model's context; only this dialogue's own.
   */
  clientFacts?(agent: Agent, dialogue: DialogueRow): Promise<string[]>;
}

/** The tool's declaration as OpenAI's chat completions request carries it. */
export function toolDeclaration(tool: AssistantTool) {
  return { type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}
