// A Messages request as a chat-completions request, for a provider that speaks OpenAI's protocol: the system
// prompt becomes the first message (a system message inside `messages` stays at its place), text and image blocks content parts, tool_use blocks an assistant's
// tool_calls (input as JSON text), tool_result blocks `tool` messages in their order, tools functions, and
// the sampling settings their chat names. What chat has no field for (top_k, thinking, cache_control) is
// left out.
import type { ChatRequest } from '../request';
import type { ContentBlock, MessagesMessage, MessagesRequest } from './schema';

/** The longest end-user id OpenAI's chat completions accept in `user`. */
const OPENAI_MAX_USER_CHARS = 64;

type ChatPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } } | { type: 'file'; file: Record<string, string> };
type ChatMessage = Record<string, unknown> & { role: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** An image or document block as a chat content part; null for a block chat cannot carry. */
function mediaPart(block: ContentBlock): ChatPart | null {
  const source = isRecord(block.source) ? block.source : null;
  if (!source) return null;
  if (block.type === 'image') {
    if (source.type === 'base64') return { type: 'image_url', image_url: { url: `data:${String(source.media_type)};base64,${String(source.data)}` } };
    if (source.type === 'url') return { type: 'image_url', image_url: { url: String(source.url) } };
  }
  if (block.type === 'document' && source.type === 'base64') {
    return { type: 'file', file: { file_data: `data:${String(source.media_type)};base64,${String(source.data)}`, filename: 'document' } };
  }
  return null;
}

/** Text and media blocks as chat parts (a tool_result's content blocks, a user's or an assistant's). */
function partsOf(blocks: readonly ContentBlock[]): ChatPart[] {
  const parts: ChatPart[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push({ type: 'text', text: String(block.text) });
    else {
      const media = mediaPart(block);
      if (media) parts.push(media);
    }
  }
  return parts;
}

/** Parts as chat content: one text part as a plain string (what every chat host takes), else the parts. */
function contentOf(parts: ChatPart[]): string | ChatPart[] {
  return parts.length === 1 && parts[0]!.type === 'text' ? parts[0]!.text : parts;
}

const joinedText = (parts: readonly ChatPart[]) =>
  parts
    .filter((p): p is Extract<ChatPart, { type: 'text' }> => p.type === 'text')
    .map((p) => p.text)
    .join('\n');

/**
 * A user message: its tool_result blocks become `tool` messages first (they answer the assistant's calls
 * just before), then its other blocks one user message. A tool result's images cannot ride in a tool
 * message: they join that user message.
 */
function userMessages(content: ContentBlock[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const rest: ChatPart[] = [];
  for (const block of content) {
    if (block.type !== 'tool_result') {
      rest.push(...partsOf([block]));
      continue;
    }
    const result = block.content;
    let text: string;
    if (typeof result === 'string' || result === undefined) text = result ?? '';
    else {
      const parts = partsOf(result as ContentBlock[]);
      text = joinedText(parts);
      rest.push(...parts.filter((p) => p.type !== 'text'));
    }
    // Chat has no error flag: the model is told in the text.
    out.push({ role: 'tool', tool_call_id: String(block.tool_use_id), content: block.is_error === true ? `Error: ${text}` : text });
  }
  if (rest.length > 0) out.push({ role: 'user', content: contentOf(rest) });
  return out;
}

/** An assistant message: its text as content, its tool_use blocks as tool_calls with the input as JSON text. */
function assistantMessage(content: ContentBlock[]): ChatMessage {
  const text: string[] = [];
  const calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  for (const block of content) {
    if (block.type === 'text') text.push(String(block.text));
    else if (block.type === 'tool_use') {
      calls.push({ id: String(block.id), type: 'function', function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const message: ChatMessage = { role: 'assistant', content: text.length > 0 ? text.join('') : null };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function chatMessages(messages: readonly MessagesMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') out.push({ role: m.role, content: m.content });
    else if (m.role === 'user') out.push(...userMessages(m.content));
    else if (m.role === 'system') out.push({ role: 'system', content: joinedText(partsOf(m.content)) });
    else out.push(assistantMessage(m.content));
  }
  return out;
}

function toolChoiceOf(choice: MessagesRequest['tool_choice']): unknown {
  switch (choice?.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    default:
      return undefined;
  }
}

/** The chat request for a Messages request (streams ask for usage: billing reads it). */
export function chatRequestOf(body: MessagesRequest): ChatRequest {
  const messages: ChatMessage[] = [];
  if (typeof body.system === 'string' ? body.system : body.system?.length) {
    const system = typeof body.system === 'string' ? body.system : body.system!.map((b) => b.text).join('\n');
    messages.push({ role: 'system', content: system });
  }
  messages.push(...chatMessages(body.messages));
  const chat: Record<string, unknown> = { model: body.model, messages, max_tokens: body.max_tokens };
  if (body.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  if (body.stop_sequences?.length) chat.stop = body.stop_sequences;
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  // OpenAI refuses a `user` over 64 characters (400), and Claude Code's user_id is a JSON text of ~150: a
  // longer one is left out rather than failing the request.
  const userId = body.metadata?.user_id;
  if (typeof userId === 'string' && userId.length <= OPENAI_MAX_USER_CHARS) chat.user = userId;
  // Anthropic's server tools (no input_schema) run at Anthropic only: a chat model cannot call them.
  const tools = (body.tools ?? []).filter((t) => t.input_schema !== undefined);
  if (tools.length > 0) {
    chat.tools = tools.map((t) => ({
      type: 'function',
      function: { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), parameters: t.input_schema },
    }));
  }
  const choice = toolChoiceOf(body.tool_choice);
  if (choice !== undefined && tools.length > 0) chat.tool_choice = choice;
  if (body.tool_choice && 'disable_parallel_tool_use' in body.tool_choice && body.tool_choice.disable_parallel_tool_use === true && tools.length > 0) {
    chat.parallel_tool_calls = false;
  }
  return chat as ChatRequest;
}
