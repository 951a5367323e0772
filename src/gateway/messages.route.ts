// POST /v1/messages and /v1/messages/count_tokens: Anthropic's Messages API (gateway/messages.ts), billed to
// the API key. Claude Code calls them with `?beta=true`, which changes nothing here.
import { defineRawRoute } from '../http/raw-route';
import type { MessagesHandler } from './messages';
import { COUNT_TOKENS_OPERATION, MESSAGES_OPERATION } from './messages.openapi';

type Deps = { messages: MessagesHandler };

export const messagesRoute = defineRawRoute<Deps>({
  method: 'POST',
  path: '/v1/messages',
  auth: 'apiKey',
  info: 'messages',
  parse: 'none',
  openapi: { operation: MESSAGES_OPERATION },
  handle: ({ request }, { messages }) => messages.handle(request),
});

export const countTokensRoute = defineRawRoute<Deps>({
  method: 'POST',
  path: '/v1/messages/count_tokens',
  auth: 'apiKey',
  info: 'messages',
  parse: 'none',
  openapi: { operation: COUNT_TOKENS_OPERATION },
  handle: ({ request }, { messages }) => messages.countTokens(request),
});
