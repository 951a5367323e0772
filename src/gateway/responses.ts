// The Responses API: POST /v1/responses (plain and streamed) is reserved, forwarded to the upstream's
// /responses and billed from the usage of the final response object (or of the stream's
// `response.completed` event) like chat; GET and DELETE /v1/responses/{id} pass through to the upstream
// only for ids the caller created, which upstream_responses keeps (the upstream knows one account, ours).
import { COST_HEADER, costText, withUsageCost } from './answer-cost';
import { relayStream } from './stream-relay';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { upstreamResponses } from './tables';
import { AppError, errorCodes, validationError } from '../http/errors';
import { gatewayMessages } from './texts';
import { requestIdOf } from '../http/request-id';
import type { Logger } from '../logger';
import type { KeyVerifier } from '../keys';
import type { PriceBook } from '../pricing/prices';
import type { Billing } from './billing';
import { keyPayer, oversizedTokens, type ChatHandler, type ChatObserver, type Payer } from './chat';
import { type Idempotency, withIdempotency } from './idempotency';
import { MODEL_ID, spliceMembers } from './request';
import { countTextTokens, createTokenTally, estimatePromptTokens, reservePromptTokens, type MessageLike } from './tokens';
import { ABORT_CLIENT_CLOSED, type Upstream } from './upstream';
import { askRouted } from './routing/failover';
import type { Routing } from './routing/registry';
import { failureRecorder, settleAnswer, type RequestFacts } from './settlement';
import { responsesUsageCounts } from './usage-details';
import { readUpstreamText } from './upstream-body';
import { upstreamCall } from './upstream-call';
import { ERROR_BODY_BYTES, fetchFailure } from './upstream-rejection';
import { pricedModel, ownKeyId, readJsonObject } from './v1-request';
import type { PayerGroups } from './price-group';
import { readWholeAnswer } from './whole-answer';

export const responsesRequestSchema = z
  .object({
    model: z
      .string({ error: 'Укажите model в формате <владелец>/<модель>' })
      .max(200)
      .regex(MODEL_ID, 'model должен иметь вид <владелец>/<модель>, например openai/gpt-4o-mini'),
    // Absent input is OpenAI's too (a stored prompt or previous_response_id may carry the conversation).
    input: z
      .union([z.string(), z.array(z.record(z.string(), z.unknown()), { error: 'элемент input должен быть объектом' })], {
        error: 'input должен быть строкой или массивом элементов',
      })
      .optional(),
    instructions: z.string({ error: 'instructions должен быть строкой' }).nullable().optional(),
    stream: z.boolean({ error: 'stream должен быть true или false' }).nullable().optional(),
    max_output_tokens: z.number({ error: 'max_output_tokens должен быть целым положительным числом' }).int().positive().nullable().optional(),
    tools: z.array(z.record(z.string(), z.unknown()), { error: 'tools должен быть массивом инструментов' }).nullable().optional(),
  })
  .loose();

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A Responses content part in chat's terms, so chat's token rules (text, images, other parts) apply. */
function chatPart(part: unknown): unknown {
  if (typeof part === 'string') return { type: 'text', text: part };
  if (!isRecord(part)) return part;
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: str(part.text) };
    case 'refusal':
      return { type: 'refusal', refusal: str(part.refusal) };
    case 'input_image':
      return { type: 'image_url', image_url: { detail: part.detail } };
    default:
      return { type: String(part.type ?? 'file') };
  }
}

/**
 * The request as chat messages and tools: messages keep their role and content, function calls and their
 * outputs become tool calls and tool messages, and any other item (reasoning, web search results…)
 * reaches the model as its JSON text. Then chat's bound and count serve unchanged.
 */
export function responsesAsChat(body: Pick<ResponsesRequest, 'input' | 'instructions' | 'tools'>): { messages: MessageLike[]; tools: unknown } {
  const messages: MessageLike[] = [];
  if (body.instructions) messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else if (Array.isArray(body.input)) {
    for (const item of body.input) {
      const type = item.type ?? 'message';
      if (type === 'message' && typeof item.role === 'string') {
        const content = typeof item.content === 'string' ? item.content : Array.isArray(item.content) ? item.content.map(chatPart) : '';
        messages.push({ role: item.role, content });
      } else if (type === 'function_call') {
        messages.push({
          role: 'assistant',
          tool_calls: [{ id: item.call_id, function: { name: item.name, arguments: item.arguments } }],
        });
      } else if (type === 'function_call_output') {
        const output = typeof item.output === 'string' ? item.output : (JSON.stringify(item.output) ?? '');
        messages.push({ role: 'tool', content: output, tool_call_id: item.call_id });
      } else {
        messages.push({ role: 'user', content: JSON.stringify(item) ?? '' });
      }
    }
  }
  // Responses tools are flat ({type: 'function', name, parameters}); chat's rule wants them nested.
  const tools = Array.isArray(body.tools) ? body.tools.map((tool) => (tool.type === 'function' ? { type: 'function', function: tool } : tool)) : undefined;
  return { messages, tools };
}

/** The generated text of a response's output: message text and refusals, function calls, reasoning summaries. */
export function responseOutputText(response: unknown): string {
  if (!isRecord(response) || !Array.isArray(response.output)) return '';
  let text = '';
  for (const item of response.output) {
    if (!isRecord(item)) continue;
    if (Array.isArray(item.content)) {
      for (const part of item.content) if (isRecord(part)) text += str(part.text) + str(part.refusal);
    }
    if (Array.isArray(item.summary)) {
      for (const part of item.summary) if (isRecord(part)) text += str(part.text);
    }
    text += str(item.name) + str(item.arguments);
  }
  return text;
}

interface ResponsesUsage {
  input_tokens?: unknown;
  output_tokens?: unknown;
  total_tokens?: unknown;
}

/** A Responses usage object as a usage row counts it, cached input and reasoning output included (usage-details.ts). */
const usageFacts = (usage: ResponsesUsage) => responsesUsageCounts(usage);

const readUsage = (value: unknown): ResponsesUsage | null =>
  isRecord(value) && (value.input_tokens !== undefined || value.output_tokens !== undefined) ? value : null;

/** Events whose `delta` is generated text, billed by count when the stream brings no usage. */
const GENERATED_DELTAS = new Set([
  'response.output_text.delta',
  'response.refusal.delta',
  'response.function_call_arguments.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
]);
/** Events that carry the final response object, usage included. */
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** A larger event is not buffered: its bytes are billed by length instead (as chat's meter does). */
const MAX_EVENT_BYTES = 1024 * 1024;

/**
 * Reads a Responses SSE stream on the side: the response id (from `response.created`), the usage of the
 * final event, and the generated deltas. Fed the bytes the client gets; never throws.
 */
export function createResponsesMeter() {
  const decoder = new TextDecoder();
  let line = '';
  let data: string | null = null;
  let eventBytes = 0;
  let dropped = false;
  const state = {
    responseId: null as string | null,
    usage: null as ResponsesUsage | null,
    text: createTokenTally(),
    oversizedBytes: 0,
  };

  function dispatch() {
    const payload = data;
    data = null;
    if (dropped) state.oversizedBytes += eventBytes;
    const wasDropped = dropped;
    dropped = false;
    eventBytes = 0;
    if (wasDropped || payload === null) return;
    let event: unknown;
    try {
      event = JSON.parse(payload);
    } catch {
      return;
    }
    if (!isRecord(event)) return;
    const type = str(event.type);
    if (type === 'response.created' && isRecord(event.response) && typeof event.response.id === 'string') {
      state.responseId ??= event.response.id;
    } else if (GENERATED_DELTAS.has(type)) {
      state.text.add(str(event.delta));
    } else if (type === 'response.output_item.added' && isRecord(event.item)) {
      // A function call's name comes only here (its arguments follow as deltas): generated, so counted as
      // the whole answer's output text counts it.
      state.text.add(str(event.item.name));
    } else if (FINAL_EVENTS.has(type) && isRecord(event.response)) {
      state.usage = readUsage(event.response.usage) ?? state.usage;
      if (typeof event.response.id === 'string') state.responseId ??= event.response.id;
    }
  }

  function onLine(text: string) {
    if (text === '') return dispatch();
    if (!text.startsWith('data')) return; // `event:` repeats the data's type; comments and ids do not matter
    let value = text.slice(4);
    if (value !== '' && value[0] !== ':') return;
    value = value.slice(1);
    if (value.startsWith(' ')) value = value.slice(1);
    eventBytes += value.length + 1;
    if (eventBytes > MAX_EVENT_BYTES) dropped = true;
    if (dropped) return;
    data = data === null ? value : `${data}\n${value}`;
  }

  /** The current line outgrew the limit: its bytes are counted, not kept. */
  let lineTooLong = false;
  /** The previous chunk ended in CR, so an LF starting this one ends no further line. */
  let afterCr = false;

  function endLine(tail: string) {
    if (lineTooLong) {
      eventBytes += tail.length;
      lineTooLong = false;
      return;
    }
    const whole = line + tail;
    line = '';
    onLine(whole);
  }

  function keepTail(tail: string) {
    if (lineTooLong) {
      eventBytes += tail.length;
      return;
    }
    line += tail;
    if (line.length > MAX_EVENT_BYTES) {
      eventBytes += line.length;
      lineTooLong = true;
      dropped = true;
      line = '';
    }
  }

  /** Feeds the next text of the stream, decoded with a streaming decoder. */
  function pushText(text: string) {
    if (text.length === 0) return;
    let i = 0;
    if (afterCr) {
      afterCr = false;
      if (text.charCodeAt(0) === 0x0a) i = 1;
    }
    let from = i;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue;
      endLine(text.slice(from, i));
      if (c === 0x0d) {
        if (i + 1 === text.length) afterCr = true;
        else if (text.charCodeAt(i + 1) === 0x0a) i += 1;
      }
      from = i + 1;
    }
    if (from < text.length) keepTail(text.slice(from));
  }

  return {
    /** Feeds the next bytes of the stream, split anywhere. */
    push(chunk: Uint8Array) {
      pushText(decoder.decode(chunk, { stream: true }));
    },
    /** The same, for text the caller decoded already (with a streaming decoder); not to be mixed with push(). */
    pushText,
    get responseId() {
      return state.responseId;
    },
    get usage() {
      return state.usage;
    },
    /** The generated text not yet counted: all of it while it is short (completionTokens counts it all). */
    get completionText() {
      return state.text.uncounted;
    },
    get completionTokens() {
      return state.text.tokens;
    },
    /**
     * Characters of events too large to parse: still sent, so still billed (by their length); with the
     * event still open when the stream ends early (a line that never ended), what came of it.
     */
    get oversizedBytes() {
      return state.oversizedBytes + (dropped ? eventBytes : 0) + line.length;
    },
  };
}

/** Without a shutdown registry (tests that build the handler alone) a stream has nothing to remove. */
const untracked = () => () => {};

const RESPONSE_NOT_FOUND = gatewayMessages.responseNotFound;
/** Upstream response ids (OpenAI's resp_…): printable, no separators, bounded. */
const RESPONSE_ID = /^[A-Za-z0-9_.:-]{1,256}$/;

export interface ResponsesHandlerDeps {
  config: Pick<Config, 'bodyLimitBytes' | 'upstreamMaxBodyBytes' | 'upstreamTimeoutMs' | 'reserveCompletionTokens'>;
  db: Database;
  /** Chat's key check, so every /v1 route refuses the same keys and shares the per-key rate limit. */
  authenticate: ChatHandler['authenticate'];
  verifier: Pick<KeyVerifier, 'markUsed'>;
  prices: PriceBook;
  /** The payer's price group (price-group.ts). */
  priceGroups: PayerGroups;
  billing: Billing;
  /** Stored responses (GET, DELETE) are the default provider's. */
  upstream: Pick<Upstream, 'response' | 'redact'>;
  /** The providers and routes a new response is created through. */
  routing: Routing;
  logger: Logger;
  observer?: ChatObserver;
  idempotency?: Idempotency;
  /** Where streams are registered to be ended at shutdown (chat's set, so the server ends them all at once). */
  streams?: Pick<ChatHandler, 'trackStream'>;
}

export function createResponsesHandler(deps: ResponsesHandlerDeps) {
  const { config, db, authenticate, verifier, prices, priceGroups, billing, upstream: defaultUpstream, routing, logger, observer, idempotency, streams } = deps;

  /**
   * Who created a response id, and at which provider: kept so GET and DELETE serve the caller's own ids
   * only, from the provider that holds them.
   */
  async function recordOwner(responseId: string, payer: Payer, facts: RequestFacts) {
    const { requestId } = facts;
    if (!RESPONSE_ID.test(responseId)) {
      logger.warn('the upstream named a response id that cannot be kept', { requestId, length: responseId.length });
      return;
    }
    try {
      await db
        .insert(upstreamResponses)
        .values({ responseId, userId: payer.userId, apiKeyId: payer.apiKeyId, providerId: facts.providerId ?? null })
        .onConflictDoNothing();
    } catch (error) {
      // The answer is already paid for and on its way: a lost record only hides it from GET later.
      logger.error('could not record the owner of a response id', { requestId, error });
    }
  }

  async function create(payer: Payer, requested: ResponsesRequest, requestedText: string, requestId: string, clientSignal: AbortSignal | null) {
    const started = performance.now();
    // The id that was priced is the one recorded and sent upstream.
    const { model, price } = pricedModel(prices, requested.model, await priceGroups(payer));
    const body = model === requested.model ? requested : { ...requested, model };
    const text = model === requested.model ? requestedText : JSON.stringify({ ...(JSON.parse(requestedText) as object), model });
    const stream = body.stream === true;
    const chat = responsesAsChat(body);
    const promptEstimate = () => estimatePromptTokens(chat.messages, chat.tools);
    const completionCap = body.max_output_tokens ?? config.reserveCompletionTokens;
    const reserveNano = prices.costOf(price, reservePromptTokens(chat.messages, chat.tools), completionCap).totalNano;
    const base: RequestFacts = {
      userId: payer.userId,
      apiKeyId: payer.apiKeyId,
      agentId: payer.agentId,
      requestId,
      endpoint: 'responses' as const,
      model: body.model,
      stream,
    };
    const reservation = await billing.reserve(payer.userId, reserveNano, { price, key: payer.keyLimit ?? null, member: payer.memberLimit ?? null, request: base });
    const fail = failureRecorder(billing, reservation, base, started);

    // A request without a cap goes with the one reserved for: a well-behaved upstream then never answers past
    // it. Written into the client's text (spliceMembers); a client's explicit null is replaced in a copy.
    const upstreamText =
      body.max_output_tokens != null
        ? text
        : ((body.max_output_tokens === undefined ? spliceMembers(text, `"max_output_tokens":${completionCap}`) : null) ??
          JSON.stringify({ ...(JSON.parse(text) as object), max_output_tokens: completionCap }));

    // An upstream without the endpoint answers 404: passed through like any 4xx.
    const {
      response,
      call,
      upstream: answering,
    } = await askRouted({
      routing,
      model: body.model,
      body: upstreamText,
      send: (provider, sent, signal) => provider.responses(sent, signal),
      clientSignal,
      fail,
      facts: base,
      logger,
      requestId,
      observer,
    });

    const isEventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    if (isEventStream && response.body) {
      // Relayed as it comes; billed for the final event's usage, or for what was streamed when the stream ends early.
      const meter = createResponsesMeter();
      let recorded: string | null = null;
      return relayStream(response.body, {
        endpoint: 'responses',
        base,
        started,
        billing,
        reservation,
        meter,
        reported: () => (meter.usage ? usageFacts(meter.usage) : null),
        estimated: () => usageFacts({ input_tokens: promptEstimate(), output_tokens: meter.completionTokens + oversizedTokens(meter.oversizedBytes) }),
        // The final event's usage gets the cost (the meter has just read its figures).
        filter: 'cost',
        redact: answering.redact,
        call,
        tooLargeStatus: 'upstream_error',
        // Recorded before the client sees the id, so a GET it makes at once finds it.
        afterChunk: () => {
          const id = meter.responseId;
          if (id === null || recorded !== null) return null;
          recorded = id;
          return recordOwner(id, payer, base);
        },
        track: streams?.trackStream ?? untracked,
        logger,
        observer,
      });
    }

    const answer = await readWholeAnswer(response, call, {
      billing,
      logger,
      reservation,
      base,
      started,
      fail,
      maxBytes: config.upstreamMaxBodyBytes,
      tooLargeTokens: (bytes) => ({ promptTokens: promptEstimate(), completionTokens: oversizedTokens(bytes) }),
    });
    let usage: ResponsesUsage | null = null;
    let completionTokens = 0;
    try {
      const parsed = JSON.parse(answer) as { id?: unknown; usage?: unknown };
      usage = readUsage(parsed?.usage);
      if (!usage) completionTokens = countTextTokens(responseOutputText(parsed));
      if (isRecord(parsed) && typeof parsed.id === 'string') await recordOwner(parsed.id, payer, base);
    } catch {
      // An answer that is not JSON is relayed as it is and billed by its length, as generated text.
      completionTokens = countTextTokens(answer);
    }
    const { costNano } = settleAnswer(billing, logger, reservation, {
      ...base,
      ...(usage ? usageFacts(usage) : usageFacts({ input_tokens: promptEstimate(), output_tokens: completionTokens })),
      status: 'ok',
      usageSource: usage ? 'upstream' : 'tokenizer',
      upstreamStatus: response.status,
      durationMs: Math.round(performance.now() - started),
    });
    const cost = costText(costNano);
    return new Response(withUsageCost(answer, cost), {
      status: response.status,
      headers: { 'content-type': response.headers.get('content-type') ?? 'application/json', [COST_HEADER]: cost },
    });
  }

  /**
   * Whether the caller may reach a stored response (a key-scoped key the responses it created, an
   * account-scoped one every response of the account), and then the provider that holds it.
   */
  async function ownedAt(key: { userId: string; keyId: string; scope: 'key' | 'account' }, id: string): Promise<{ providerId: string | null } | null> {
    // No response id of ours could look like this one (and text with NUL cannot even be looked up).
    if (!RESPONSE_ID.test(id)) return null;
    const keyId = ownKeyId(key);
    const [own] = await db
      .select({ providerId: upstreamResponses.providerId })
      .from(upstreamResponses)
      .where(and(eq(upstreamResponses.responseId, id), eq(upstreamResponses.userId, key.userId), keyId === null ? undefined : eq(upstreamResponses.apiKeyId, keyId)))
      .limit(1);
    return own ?? null;
  }

  const owns = async (key: { userId: string; keyId: string; scope: 'key' | 'account' }, id: string) => (await ownedAt(key, id)) !== null;

  /** GET or DELETE of one of the caller's responses, answered with the upstream's status and body. */
  async function passThrough(request: Request, method: 'GET' | 'DELETE', id: string): Promise<Response> {
    const key = await authenticate(request);
    verifier.markUsed(key.keyId);
    // Another user's (or key's) id is answered exactly like an unknown one: ids are not to be probed.
    const own = await ownedAt(key, id);
    if (!own) throw new AppError('not_found', RESPONSE_NOT_FOUND);
    // Only the provider that created a response knows it. One an operator has since deleted cannot be
    // reached at all: asking another provider would only make it answer for an id it never gave.
    const provider = own.providerId === null ? null : routing.provider(own.providerId);
    if (own.providerId !== null && !provider) throw new AppError('not_found', RESPONSE_NOT_FOUND);
    const upstream = provider?.upstream ?? defaultUpstream;
    const call = upstreamCall(request.signal, provider?.timeoutMs ?? config.upstreamTimeoutMs);
    let response: Response;
    try {
      response = await upstream.response(method, id, new URL(request.url).search, call.signal);
    } catch (error) {
      call.cleanup();
      throw fetchFailure(error, call.signal).error;
    }
    // The headers are in; a body streamed back (GET …?stream=true) is timed by the client, not by us.
    call.stopTimer();
    if (method === 'DELETE' && response.ok) {
      await db.delete(upstreamResponses).where(eq(upstreamResponses.responseId, id));
    }
    const headers: Record<string, string> = { 'content-type': response.headers.get('content-type') ?? 'application/json' };
    if (!response.ok) {
      // An error is read whole (it is small) so that no provider key it may echo reaches the client.
      let text = '';
      try {
        text = await readUpstreamText(response, ERROR_BODY_BYTES);
      } catch {
        // The error body was lost (or is no error message: far too long); the status still tells what happened.
      }
      call.cleanup();
      return new Response(upstream.redact(text), { status: response.status, headers });
    }
    if (!response.body) {
      call.cleanup();
      return new Response(null, { status: response.status, headers });
    }
    const reader = response.body.getReader();
    return new Response(
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const chunk = await reader.read();
            if (chunk.done) {
              call.cleanup();
              controller.close();
            } else controller.enqueue(chunk.value);
          } catch (error) {
            call.cleanup();
            controller.error(error);
          }
        },
        cancel() {
          call.abort.abort(ABORT_CLIENT_CLOSED);
          call.cleanup();
        },
      }),
      { status: response.status, headers },
    );
  }

  return {
    /** POST /v1/responses. */
    async handle(request: Request): Promise<Response> {
      const key = await authenticate(request);
      const { text, json } = await readJsonObject(request, config.bodyLimitBytes);
      const parsed = responsesRequestSchema.safeParse(json);
      if (!parsed.success) throw validationError(parsed.error);
      verifier.markUsed(key.keyId);
      // A conversation is continued only from the caller's own response: the upstream would read any id
      // under our one account, another user's (or key's) included.
      const previous = (json as Record<string, unknown>).previous_response_id;
      if (typeof previous === 'string' && !(await owns(key, previous))) {
        throw new AppError('not_found', RESPONSE_NOT_FOUND, { param: 'previous_response_id', code: errorCodes.previousResponseNotFound });
      }
      const requestId = requestIdOf(request);
      const payer = keyPayer(key);
      return withIdempotency(
        { idempotency, logger },
        request,
        { owner: { userId: key.userId, keyId: ownKeyId(key) }, text, requestId, stream: parsed.data.stream === true },
        () => create(payer, parsed.data, text, requestId, request.signal),
      );
    },
    /** GET /v1/responses/{id}. */
    get: (request: Request, id: string) => passThrough(request, 'GET', id),
    /** DELETE /v1/responses/{id}. */
    delete: (request: Request, id: string) => passThrough(request, 'DELETE', id),
  };
}

export type ResponsesHandler = ReturnType<typeof createResponsesHandler>;
