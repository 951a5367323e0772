// One /v1 request's way to an answer across providers: the route's candidates in order, the next untried
// one after a connection failure, a timeout before the answer came, 408, 429, 5xx, or a provider refusing
// our own credentials or account (upstream-fault.ts: not the client's fault); at most ROUTE_MAX_ATTEMPTS
// attempts, and after a timeout only within the caller's ROUTE_TIMEOUT_FAILOVERS_PER_MINUTE (budget.ts).
// Another 4xx, a moderation refusal included, is the client's and passes through at once. The answer is
// committed to when its status is 2xx and its headers are in, before any byte reaches the client, so
// nothing sent is ever retried.
//
// Each attempt is counted for the operator's figures (routing.attempts, attempt-counts.ts) where its
// health verdict is given, so the screen's faults and the health's failures in a row are one classification.
//
// Only the provider's own faults count against it: a refused key or account disables it, trouble counts
// towards a cooldown (a timeout once per account a minute: health.timedOut), and the client's own
// refusals count for nothing.
//
// The caller reserved once and records once: a failed attempt only feeds the providers' health; the
// request's usage row (through `fail`, or the caller's settlement) names the provider that answered, or
// the last one tried, and how many were tried, because this writes both into the request's facts.
//
// A provider speaking another protocol than the client's (openai ↔ anthropic) gets the request translated
// (`bodyIn`), or, where the route has no translation (embeddings, responses), is skipped.
import { AppError } from '../../http/errors';
import { gatewayMessages } from '../texts';
import type { Logger } from '../../logger';
import { ABORT_CLIENT_CLOSED, type Protocol, type Upstream } from '../upstream';
import type { FailureRecorder, RequestFacts } from '../settlement';
import { upstreamCall } from '../upstream-call';
import { fetchFailure, readUpstreamRejection, type UpstreamRejection } from '../upstream-rejection';
import type { Candidate, Routing } from './registry';

/** The request body for a candidate: the client's bytes, or with `model` replaced by the provider's own id. */
function bodyFor(text: string, candidate: Candidate): string {
  if (candidate.model === null) return text;
  const body = JSON.parse(text) as Record<string, unknown>;
  return JSON.stringify({ ...body, model: candidate.model });
}

export interface RoutedCall {
  routing: Routing;
  /** The model the client asked for. */
  model: string;
  /** The body as it would go to the upstream for the client's own model id, in the client's protocol. */
  body: string;
  /** The client's protocol (default openai): a provider speaking it gets `body`. */
  protocol?: Protocol;
  /**
   * The body for a provider speaking another protocol (translated); without it, such providers are skipped
   * (embeddings and responses exist in OpenAI's protocol only).
   */
  bodyIn?: (protocol: Protocol) => string;
  send: (upstream: Upstream, body: string, signal: AbortSignal) => Promise<Response>;
  clientSignal: AbortSignal | null;
  fail: FailureRecorder;
  /** The request's usage facts: providerId and attempts are written into them as attempts are made. */
  facts: RequestFacts;
  logger: Logger;
  requestId: string;
  observer?: {
    upstreamResponded(status: number | 'network' | 'timeout', seconds: number, providerId?: string): void;
    failedOver?(providerId: string): void;
  };
}

type Outcome =
  | { kind: 'answer'; response: Response; call: ReturnType<typeof upstreamCall>; upstream: Upstream }
  | { kind: 'retry'; rejection: UpstreamRejection; upstreamStatus: number | null; providerId: string; timedOut: boolean };

/**
 * Asks the route's providers in turn until one answers 2xx or the client's own error; the caller then
 * owns `call` (its timer and the client's abort) and must clean it up. Throws what the client hears
 * otherwise, with the reservation given back through `fail`: after one attempt, that attempt's own error
 * (as before routing); after several, 502 saying no provider could answer.
 */
export async function askRouted(options: RoutedCall): Promise<{ response: Response; call: ReturnType<typeof upstreamCall>; upstream: Upstream }> {
  const { routing, facts, fail, observer } = options;
  const { health } = routing;
  const candidates = routing.candidates(options.model);
  const cooling: Candidate[] = [];
  const disabled: Candidate[] = [];
  let attempts = 0;
  let last: Extract<Outcome, { kind: 'retry' }> | null = null;

  async function attempt(candidate: Candidate): Promise<Outcome> {
    const { provider } = candidate;
    if (last) observer?.failedOver?.(last.providerId);
    attempts += 1;
    facts.providerId = provider.id;
    facts.attempts = attempts;
    facts.providerPrice = candidate.cost;
    const call = upstreamCall(options.clientSignal, provider.timeoutMs);
    const asked = performance.now();
    let response: Response;
    try {
      if (options.clientSignal?.aborted) call.abort.abort(ABORT_CLIENT_CLOSED);
      call.signal.throwIfAborted();
      const speaks = provider.upstream.protocol;
      const body = speaks === (options.protocol ?? 'openai') ? options.body : options.bodyIn!(speaks);
      response = await options.send(provider.upstream, bodyFor(body, candidate), call.signal);
      observer?.upstreamResponded(response.status, (performance.now() - asked) / 1000, provider.id);
    } catch (error) {
      call.cleanup();
      const failure = fetchFailure(error, call.signal);
      // A fetch error's text may quote what we sent; the provider's own key never leaves in it.
      failure.detail = provider.upstream.redact(failure.detail);
      if (failure.kind === 'client_closed') {
        health.released(provider.id);
        routing.attempts.attempted(provider.id, 'other');
        fail(failure.status, failure.detail);
        throw failure.error;
      }
      observer?.upstreamResponded(failure.kind === 'timeout' ? 'timeout' : 'network', (performance.now() - asked) / 1000, provider.id);
      if (failure.kind === 'timeout') health.timedOut(provider.id, facts.userId, failure.detail);
      else health.failed(provider.id, failure.detail, false);
      routing.attempts.attempted(provider.id, 'fault');
      return { kind: 'retry', rejection: failure, upstreamStatus: null, providerId: provider.id, timedOut: failure.kind === 'timeout' };
    }
    if (response.ok) {
      health.succeeded(provider.id);
      // Counted as answered now; a stream it cuts later is added as a fault at settlement (attempt-counts.ts).
      routing.attempts.attempted(provider.id, 'answered');
      return { kind: 'answer', response, call, upstream: provider.upstream };
    }
    const rejection = await readUpstreamRejection(response, options.logger, options.requestId, provider.upstream.redact);
    call.cleanup();
    if (rejection.fault === 'account' || rejection.fault === 'trouble') {
      health.failed(provider.id, `status ${response.status}: ${rejection.detail}`, rejection.fault === 'account');
      routing.attempts.attempted(provider.id, 'fault');
      return { kind: 'retry', rejection, upstreamStatus: response.status, providerId: provider.id, timedOut: false };
    }
    if (rejection.fault === 'unaffordable') {
      // Our account there cannot pay for this request's size: another may; nothing against this one.
      health.released(provider.id);
      routing.attempts.attempted(provider.id, 'other');
      return { kind: 'retry', rejection, upstreamStatus: response.status, providerId: provider.id, timedOut: false };
    }
    // The client's own error: the provider did its job. A refusal of what the client sent (a 403:
    // moderation) says nothing of the provider's health either way.
    if (response.status === 403) health.released(provider.id);
    else health.succeeded(provider.id);
    routing.attempts.attempted(provider.id, 'client_error');
    fail(rejection.status, rejection.detail, response.status);
    throw rejection.error;
  }

  /** Who a failover after a timeout is charged to (budget.ts): the key, else the agent, else the account. */
  const caller = facts.apiKeyId ?? facts.agentId ?? facts.userId;
  const client = options.protocol ?? 'openai';
  for (const candidate of candidates) {
    if (attempts >= routing.maxAttempts) break;
    // A provider of another protocol, when the request cannot be translated for it.
    if (!options.bodyIn && candidate.provider.upstream.protocol !== client) continue;
    const admission = health.admit(candidate.provider.id);
    if (admission === 'disabled') {
      disabled.push(candidate);
      continue;
    }
    if (admission === 'cooling') {
      cooling.push(candidate);
      continue;
    }
    // A timed-out attempt may still be generating: going on costs another generation, within the budget.
    if (last?.timedOut && !routing.timeoutFailovers.take(caller)) {
      if (admission === 'trial') health.released(candidate.provider.id);
      break;
    }
    const outcome = await attempt(candidate);
    if (outcome.kind === 'answer') return outcome;
    last = outcome;
  }
  if (attempts === 0 && (cooling.length > 0 || disabled.length > 0)) {
    // Every target is cooling down (or, failing that, disabled): the one that failed longest ago rather
    // than no answer at all. So a deployment whose only provider is `default` calls it for every request,
    // as before routing, and sees it recover (a topped-up account) without an operator.
    const lastFailure = (c: Candidate) => health.get(c.provider.id).lastFailureAt ?? 0;
    const oldest = (cooling.length > 0 ? cooling : disabled).reduce((a, b) => (lastFailure(b) < lastFailure(a) ? b : a));
    const outcome = await attempt(oldest);
    if (outcome.kind === 'answer') return outcome;
    last = outcome;
  }
  if (!last) {
    facts.providerId = null;
    facts.attempts = 0;
    facts.providerPrice = null;
    fail('upstream_error', 'no provider available for the model');
    throw new AppError('upstream_error', gatewayMessages.noProviderAnswered);
  }
  fail(last.rejection.status, last.rejection.detail, last.upstreamStatus);
  throw attempts > 1 ? new AppError('upstream_error', gatewayMessages.noProviderAnswered) : last.rejection.error;
}
