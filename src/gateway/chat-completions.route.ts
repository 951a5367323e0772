// POST /v1/chat/completions: the OpenAI-compatible chat call (gateway/chat.ts), billed to the API key.
import { defineRawRoute } from '../http/raw-route';
import type { ChatHandler } from './chat';
import { CHAT_COMPLETIONS_OPERATION } from './v1.openapi';

export const chatCompletionsRoute = defineRawRoute<{ chat: Pick<ChatHandler, 'handle'> }>({
  method: 'POST',
  path: '/v1/chat/completions',
  auth: 'apiKey',
  info: 'chatCompletions',
  parse: 'none',
  openapi: { operation: CHAT_COMPLETIONS_OPERATION },
  handle: ({ request }, { chat }) => chat.handle(request),
});
