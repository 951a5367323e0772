// A chat-completions request as a Messages request, for a provider that speaks Anthropic's protocol: system
// and developer messages become `system`, content parts blocks (a data: URL a base64 image), an assistant's
// tool_calls tool_use blocks (arguments parsed back into the input object), consecutive `tool` messages one
// user message of tool_result blocks, functions tools, and the settings their Messages names. Anthropic
// requires max_tokens: the cap the request was reserved for goes when the client named none.
import type { ChatRequest } from '../request';

type Block = Record<string, unknown> & { type: string };
interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** Anthropic's input must be an object: arguments that are not a JSON object ride inside one. */
export function toolInputOf(args: unknown): Record<string, unknown> {
  if (typeof args !== 'string' || args.trim() === '') return {};
  try {
    const parsed = JSON.parse(args) as unknown;
    return isRecord(parsed) && !Array.isArray(parsed) ? parsed : { arguments: parsed };
  } catch {
    return { arguments: args };
  }
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const blocks: Block[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'image_url' && isRecord(part.image_url) && typeof part.image_url.url === 'string') {
      const url = part.image_url.url;
      const data = DATA_URL.exec(url);
      blocks.push({ type: 'image', source: data ? { type: 'base64', media_type: data[1], data: data[2] } : { type: 'url', url } });
    }
  }
  return blocks;
}

const textOf = (content: unknown): string =>
  blocksOf(content)
    .filter((b) => b.type === 'text')
    .map((b) => b.text as string)
    .join('\n');

function toolUses(message: Record<string, unknown>): Block[] {
  const blocks: Block[] = [];
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call) || !isRecord(call.function)) continue;
      blocks.push({ type: 'tool_use', id: String(call.id ?? ''), name: String(call.function.name ?? ''), input: toolInputOf(call.function.arguments) });
    }
  }
  // The legacy single function call: its result comes back as a `function` message named after it.
  if (isRecord(message.function_call)) {
    const name = String(message.function_call.name ?? '');
    blocks.push({ type: 'tool_use', id: name, name, input: toolInputOf(message.function_call.arguments) });
  }
  return blocks;
}

/** Turns in Anthropic's order: a turn of the same role as the one before joins it (tool results and a user's text). */
function turnsOf(messages: ChatRequest['messages']): { system: string[]; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  const add = (role: Turn['role'], content: Block[]) => {
    if (content.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  for (const m of messages as Record<string, unknown>[]) {
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(textOf(m.content));
        break;
      case 'assistant':
        add('assistant', [...blocksOf(m.content), ...toolUses(m)]);
        break;
      case 'tool':
      case 'function':
        add('user', [{ type: 'tool_result', tool_use_id: String(m.tool_call_id ?? m.name ?? ''), content: textOf(m.content) }]);
        break;
      default:
        add('user', blocksOf(m.content));
    }
  }
  return { system, turns };
}

function toolChoiceOf(choice: unknown, parallel: unknown): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'required') out = { type: 'any' };
  else if (choice === 'none') out = { type: 'none' };
  else if (isRecord(choice) && isRecord(choice.function)) out = { type: 'tool', name: String(choice.function.name ?? '') };
  if (parallel === false && out?.type !== 'none') out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

/** The Messages request for a chat request; `completionCap` is its max_tokens when the client named none. */
export function messagesRequestOf(body: ChatRequest, completionCap: number): Record<string, unknown> {
  const chat = body as ChatRequest & Record<string, unknown>;
  const { system, turns } = turnsOf(body.messages);
  const out: Record<string, unknown> = { model: body.model, max_tokens: body.max_completion_tokens ?? body.max_tokens ?? completionCap, messages: turns };
  if (system.length > 0) out.system = system.join('\n\n');
  if (body.stream === true) out.stream = true;
  const stop = chat.stop;
  if (typeof stop === 'string') out.stop_sequences = [stop];
  else if (Array.isArray(stop) && stop.length > 0) out.stop_sequences = stop;
  // Anthropic's temperature runs 0–1, chat's 0–2.
  if (typeof chat.temperature === 'number') out.temperature = Math.min(chat.temperature, 1);
  if (typeof chat.top_p === 'number') out.top_p = chat.top_p;
  if (typeof chat.user === 'string') out.metadata = { user_id: chat.user };
  const tools = Array.isArray(chat.tools) ? chat.tools : Array.isArray(chat.functions) ? chat.functions.map((f) => ({ type: 'function', function: f })) : [];
  const defined = tools.filter((t): t is { function: Record<string, unknown> } => isRecord(t) && isRecord(t.function));
  if (defined.length > 0) {
    out.tools = defined.map(({ function: f }) => ({
      name: String(f.name ?? ''),
      ...(typeof f.description === 'string' ? { description: f.description } : {}),
      input_schema: isRecord(f.parameters) ? f.parameters : { type: 'object', properties: {} },
    }));
    const choice = toolChoiceOf(chat.tool_choice ?? chat.function_call, chat.parallel_tool_calls);
    if (choice) out.tool_choice = choice;
  }
  return out;
}
