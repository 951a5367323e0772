// POST /v1/messages and /v1/messages/count_tokens: Anthropic's Messages API for Claude clients. A message
// goes through chat's one pipeline (gateway/chat.ts complete(): reservation, routing and failover, the key's
// limits, idempotency, settlement, usage rows), as a Messages client: an anthropic provider gets the
// client's own body and anthropic-* headers, an openai provider the request translated (gateway/anthropic/),
// and the answer comes back in Anthropic's shape either way. Errors on these paths take Anthropic's shape
// (http/errors.ts).
import { validationError } from '../http/errors';
import { bearerToken } from '../http/bearer';
import { requestIdOf } from '../http/request-id';
import type { Logger } from '../logger';
import type { KeyVerifier } from '../keys';
import { chatRequestOf } from './anthropic/chat-request';
import { countTokensRequestSchema, messagesRequestSchema } from './anthropic/schema';
import { keyPayer, type ChatHandler } from './chat';
import { type Idempotency, withIdempotency } from './idempotency';
import { estimatePromptTokens } from './tokens';
import { ownKeyId, readJsonObject } from './v1-request';

export interface MessagesHandlerDeps {
  config: { bodyLimitBytes: number };
  chat: Pick<ChatHandler, 'authenticate' | 'complete'>;
  verifier: Pick<KeyVerifier, 'markUsed'>;
  idempotency?: Idempotency;
  logger: Logger;
}

/** The Conduit key of an Anthropic client: x-api-key, as the Anthropic SDKs send it, or a Bearer token. */
function apiKeyOf(request: Request): string | null {
  const key = request.headers.get('x-api-key')?.trim();
  return key ? key : bearerToken(request.headers);
}

export function createMessagesHandler({ config, chat, verifier, idempotency, logger }: MessagesHandlerDeps) {
  return {
    async handle(request: Request): Promise<Response> {
      const key = await chat.authenticate(request, apiKeyOf(request));
      const { text, json } = await readJsonObject(request, config.bodyLimitBytes);
      const parsed = messagesRequestSchema.safeParse(json);
      if (!parsed.success) throw validationError(parsed.error);
      const body = parsed.data;
      verifier.markUsed(key.keyId);
      const requestId = requestIdOf(request);
      const headers = { version: request.headers.get('anthropic-version'), beta: request.headers.get('anthropic-beta') };
      return withIdempotency(
        { idempotency, logger },
        request,
        { owner: { userId: key.userId, keyId: ownKeyId(key) }, text, requestId, stream: body.stream === true },
        () => chat.complete(keyPayer(key), chatRequestOf(body), null, requestId, request.signal, { body, text, headers }),
      );
    },

    /** The prompt's tokens by Conduit's tokenizer: an estimate (the provider's own count may differ), free of charge. */
    async countTokens(request: Request): Promise<Response> {
      const key = await chat.authenticate(request, apiKeyOf(request));
      const { json } = await readJsonObject(request, config.bodyLimitBytes);
      const parsed = countTokensRequestSchema.safeParse(json);
      if (!parsed.success) throw validationError(parsed.error);
      verifier.markUsed(key.keyId);
      const chatForm = chatRequestOf({ ...parsed.data, max_tokens: 1 });
      const tools = (chatForm as { tools?: unknown }).tools;
      return Response.json({ input_tokens: estimatePromptTokens(chatForm.messages, tools) });
    },
  };
}

export type MessagesHandler = ReturnType<typeof createMessagesHandler>;
