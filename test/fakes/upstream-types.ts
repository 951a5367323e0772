// What tests hand the fake upstream and read back from it: the requests it recorded, its options and its
// handle. The fake itself (test/fakes/upstream.ts) re-exports them, so tests import from there.
import type { FakeModel } from './upstream-answers';
export interface RecordedRequest {
  path: string;
  method: string;
  headers: Record<string, string>;
  /** Parsed JSON; the raw text when it was not JSON; null without a body. */
  body: any;
  /** performance.now() when the request arrived. */
  receivedAt: number;
  /** performance.now() when the fake saw the client go away mid-answer; null otherwise. */
  abortedAt: number | null;
}

export interface FakeUpstreamOptions {
  apiKey?: string;
  pieceDelayMs?: number;
  slowMs?: number;
  slowStreamDelayMs?: number;
  /** Listen on this port (a host killed and started again where it was); unset: a free one. */
  port?: number;
}

export interface FakeUpstream {
  /** Base URL, ending where `/chat/completions` is appended: `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** The key every request must carry as a bearer token; null accepts anything. */
  apiKey: string | null;
  requests: RecordedRequest[];
  /** Models whose stream or wait ended because the client went away, in order. */
  aborted: string[];
  /** The exact text of every stream sent to its end, in order of completion. */
  streams: string[];
  models: FakeModel[];
  modelsDown: boolean;
  /** Answer every /responses route with OpenAI's 404 for an unknown URL, as a host without the Responses API does. */
  responsesMissing: boolean;
  /** Every JSON error's message echoes the request's Authorization header and its bare token. */
  echoAuthorization: boolean;
  /**
   * The whole host in trouble, whatever the model: a status answers every POST with OpenAI's error of that
   * status; 'hang' sends nothing until the client leaves. null: normal service.
   */
  outage: number | 'hang' | null;
  /** With a numeric `outage`: the answer's `error` object as given (e.g. a moderation refusal); null: OpenAI's default. */
  outageError: Record<string, unknown> | null;
  /** What GET {url}/credits answers, OpenRouter's `{data: {total_credits, total_usage}}`; null: 404. */
  credits: { total_credits: number; total_usage: number } | null;
  /**
   * Model id → the exact `usage` object the fake reports for it instead of its own, in chat answers, a chat
   * stream's usage chunk and /responses' final response: a provider naming cached, cache-written, reasoning or
   * image tokens in its details, or reporting them wrongly. The answer's text is the usual one. Emptied by reset().
   */
  reportedUsage: Map<string, unknown>;
  /** Responses created so far by id (the final object), for GET and DELETE /responses/{id}. */
  storedResponses: Map<string, unknown>;
  slowMs: number;
  pieceDelayMs: number;
  /** What /audio/transcriptions hears in any audio, and how long it says the audio is (upstream-audio.ts). */
  transcript: string;
  audioSeconds: number;
  slowStreamDelayMs: number;
  /** fake/held-stream answers open right now, and the most open at once. */
  heldOpen: number;
  peakHeldOpen: number;
  /** Lets every fake/held-stream answer open now run to its end. */
  releaseHeld(): void;
  /** Forgets recorded requests and restores the models and timings it started with. */
  reset(): void;
  close(): Promise<void>;
}
