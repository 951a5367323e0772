// POST /v1/audio/transcriptions: key → multipart form under AUDIO_MAX_BYTES → reservation for the audio's
// length → the route's providers (multipart `{baseUrl}/audio/transcriptions`, failover as for chat) →
// settlement → the answer in the format the client asked for.
//
// Billing. A `per_second` price charges the seconds of audio the provider reports (usage.seconds, else
// verbose_json's duration); a token price charges usage.input_tokens / output_tokens. To learn them
// without changing what the client gets, Conduit may ask the provider for more than the client did
// (transcription-formats.ts renders the client's format back): per second, text/srt/vtt are asked as
// verbose_json; per token, text is asked as json. Where the provider still reports nothing, the length the
// file's header tells (audio-duration.ts) stands in, else the reservation's bound.
//
// Reservation. The bound is the header's length (rounded up, plus a second), or AUDIO_MAX_SECONDS when the
// header tells none; a token-priced model reserves AUDIO_TOKENS_PER_SECOND tokens a second each way.
import { createHash } from 'node:crypto';
import type { Config } from '../config';
import { readBodyBytes } from '../http/body';
import { AppError } from '../http/errors';
import { requestIdOf } from '../http/request-id';
import { secondsCostOf } from '../pricing/prices';
import { COST_HEADER, costText } from './answer-cost';
import { audioDurationSeconds } from './audio-duration';
import { AUDIO_FORM_OVERHEAD_BYTES } from './audio-limit';
import { keyPayer, type Payer } from './chat';
import type { EmbeddingsHandlerDeps } from './embeddings';
import { withIdempotency } from './idempotency';
import { MODEL_ID } from './request';
import { askRouted } from './routing/failover';
import { failureRecorder, tokenCount } from './settlement';
import { gatewayMessages } from './texts';
import { countTextTokens } from './tokens';
import { renderTranscription, TRANSCRIPTION_FORMATS, type TranscriptionFormat } from './transcription-formats';
import { ownKeyId, pricedModel } from './v1-request';
import { readWholeAnswer } from './whole-answer';

/** One transcription as the gateway sends it on. */
export interface TranscriptionInput {
  file: Blob;
  filename: string;
  model: string;
  format: TranscriptionFormat;
  /** The client's other fields as sent (language, prompt, temperature, timestamp_granularities[]…), passed on. */
  fields: [string, string][];
}

/** Fields Conduit reads itself; every other one goes to the provider as it came. */
const OWN_FIELDS = new Set(['file', 'model', 'response_format', 'stream']);

const invalid = (message: string, param: string) => new AppError('invalid_request_error', message, { param });

/** The client's form as a TranscriptionInput; 400 for a missing or malformed field, 413 for a file over the limit. */
export function transcriptionInput(form: FormData, maxBytes: number): TranscriptionInput {
  const file = form.get('file');
  if (file === null || typeof file === 'string') throw invalid(gatewayMessages.audioFileMissing, 'file');
  if (file.size === 0) throw invalid(gatewayMessages.audioFileMissing, 'file');
  if (file.size > maxBytes) throw new AppError('payload_too_large', gatewayMessages.audioFileTooLarge(Math.floor(maxBytes / (1024 * 1024))), { param: 'file' });
  const model = form.get('model');
  if (typeof model !== 'string' || model.length > 200 || !MODEL_ID.test(model.trim())) throw invalid(gatewayMessages.audioModelMissing, 'model');
  const format = form.get('response_format') ?? 'json';
  if (typeof format !== 'string' || !(TRANSCRIPTION_FORMATS as readonly string[]).includes(format))
    throw invalid(gatewayMessages.audioFormatInvalid, 'response_format');
  if (form.get('stream') === 'true') throw invalid(gatewayMessages.audioStreamUnsupported, 'stream');
  const fields: [string, string][] = [];
  for (const [name, value] of form.entries()) if (!OWN_FIELDS.has(name) && typeof value === 'string') fields.push([name, value]);
  return { file, filename: file instanceof File && file.name ? file.name : 'audio', model: model.trim(), format: format as TranscriptionFormat, fields };
}

/**
 * What the idempotency record compares for a form: its fields and files in order, a file by its name, type and
 * bytes' digest. Not the body's bytes: a client's repeat has another multipart boundary (the SDKs pick one per request).
 */
async function formDigest(form: FormData): Promise<string> {
  const hash = createHash('sha256');
  for (const [name, entry] of form.entries()) {
    const value = entry as string | File;
    const part =
      typeof value === 'string'
        ? ['field', name, value]
        : [
            'file',
            name,
            value.name,
            value.type,
            createHash('sha256')
              .update(new Uint8Array(await value.arrayBuffer()))
              .digest('hex'),
          ];
    hash.update(`${JSON.stringify(part)}\n`);
  }
  return hash.digest('hex');
}

/** What the provider's JSON answer reports: seconds of audio, tokens, the transcript. */
function measured(answer: Record<string, unknown> | null) {
  const usage = answer?.usage && typeof answer.usage === 'object' ? (answer.usage as Record<string, unknown>) : null;
  const seconds = usage?.type === 'duration' && Number(usage.seconds) > 0 ? Number(usage.seconds) : Number(answer?.duration) > 0 ? Number(answer?.duration) : null;
  const tokens = usage?.type === 'tokens' ? { input: tokenCount(usage.input_tokens), output: tokenCount(usage.output_tokens) } : null;
  return { seconds, tokens, text: typeof answer?.text === 'string' ? answer.text : null, usage };
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** What every billed /v1 route but chat is built from (embeddings' own), with the audio limits. */
export type TranscriptionsHandlerDeps = Omit<EmbeddingsHandlerDeps, 'config'> & {
  config: Pick<Config, 'audioMaxBytes' | 'audioMaxSeconds' | 'audioTokensPerSecond' | 'upstreamMaxBodyBytes'>;
};

export function createTranscriptionsHandler(deps: TranscriptionsHandlerDeps) {
  const { config, authenticate, verifier, prices, priceGroups, billing, routing, logger, observer, idempotency } = deps;

  /**
   * One transcription for a payer: reserve, ask the route's providers, settle, answer. Shared by the /v1
   * route and the assistant (VK voice messages), so both bill the same way.
   */
  async function transcribe(payer: Payer, input: TranscriptionInput, requestId: string, clientSignal: AbortSignal | null): Promise<Response> {
    const started = performance.now();
    const { model, price } = pricedModel(prices, input.model, await priceGroups(payer));
    const headerSeconds = audioDurationSeconds(new Uint8Array(await input.file.arrayBuffer()));
    const boundSeconds = headerSeconds !== null ? Math.ceil(headerSeconds) + 1 : config.audioMaxSeconds;
    const perSecond = price.perSecondNano;
    const boundTokens = boundSeconds * config.audioTokensPerSecond;
    const reserveNano = perSecond !== undefined ? secondsCostOf(perSecond, boundSeconds * 1000).totalNano : prices.costOf(price, boundTokens, boundTokens).totalNano;
    // What to ask for so that the answer tells what the price needs (see the file's head).
    const asked: TranscriptionFormat =
      perSecond !== undefined ? (input.format === 'json' ? 'json' : 'verbose_json') : input.format === 'text' ? 'json' : input.format;
    const base = {
      userId: payer.userId,
      apiKeyId: payer.apiKeyId,
      agentId: payer.agentId,
      requestId,
      endpoint: 'audio_transcriptions' as const,
      model,
      stream: false,
    };
    const reservation = await billing.reserve(payer.userId, reserveNano, { price, key: payer.keyLimit ?? null, member: payer.memberLimit ?? null, request: base });
    const fail = failureRecorder(billing, reservation, base, started);

    const formFor = (target: string) => {
      const form = new FormData();
      form.append('file', input.file, input.filename);
      form.append('model', target);
      form.append('response_format', asked);
      for (const [name, value] of input.fields) form.append(name, value);
      return form;
    };
    const { response, call } = await askRouted({
      routing,
      model,
      body: null,
      send: (upstream, _body, signal, target) => upstream.transcriptions(formFor(target ?? model), signal),
      clientSignal,
      fail,
      facts: base,
      logger,
      requestId,
      observer,
    });
    const text = await readWholeAnswer(response, call, {
      billing,
      logger,
      reservation,
      base,
      started,
      fail,
      maxBytes: config.upstreamMaxBodyBytes,
      tooLargeTokens: () => ({ promptTokens: 0, completionTokens: 0 }),
    });

    const answer = asked === 'json' || asked === 'verbose_json' ? jsonObject(text) : null;
    const got = measured(answer);
    const seconds = got.seconds ?? headerSeconds ?? boundSeconds;
    // A token price without reported tokens: the audio's length at AUDIO_TOKENS_PER_SECOND in, the transcript's tokens out.
    const tokens =
      got.tokens ??
      (perSecond !== undefined ? { input: 0, output: 0 } : { input: Math.ceil(seconds * config.audioTokensPerSecond), output: countTextTokens(got.text ?? text) });
    const reported = perSecond !== undefined ? got.seconds !== null : got.tokens !== null;
    const { costNano } = billing.settle(reservation, {
      ...base,
      promptTokens: tokens.input,
      completionTokens: tokens.output,
      totalTokens: tokens.input + tokens.output,
      audioMs: Math.round(seconds * 1000),
      status: 'ok',
      usageSource: reported ? 'upstream' : 'tokenizer',
      upstreamStatus: response.status,
      durationMs: Math.round(performance.now() - started),
    });
    const cost = costText(costNano);
    const headers = { [COST_HEADER]: cost };
    if (!answer) {
      // Relayed as it came: text, srt or vtt asked as such, or a provider that did not answer JSON.
      return new Response(text, {
        status: response.status,
        headers: { ...headers, 'content-type': response.headers.get('content-type') ?? 'text/plain; charset=utf-8' },
      });
    }
    if (input.format === 'text' || input.format === 'srt' || input.format === 'vtt') {
      return new Response(renderTranscription(input.format, answer), {
        status: response.status,
        headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' },
      });
    }
    const usage =
      got.usage ??
      (perSecond !== undefined
        ? { type: 'duration', seconds: Math.ceil(seconds) }
        : { type: 'tokens', input_tokens: tokens.input, output_tokens: tokens.output, total_tokens: tokens.input + tokens.output });
    return new Response(JSON.stringify({ ...answer, usage: { ...usage, cost: Number(cost) } }), {
      status: response.status,
      headers: { ...headers, 'content-type': 'application/json' },
    });
  }

  return {
    transcribe,

    /** The /v1/audio/transcriptions route. */
    async handle(request: Request): Promise<Response> {
      const key = await authenticate(request);
      const contentType = request.headers.get('content-type') ?? '';
      const bytes = await readBodyBytes(request, config.audioMaxBytes + AUDIO_FORM_OVERHEAD_BYTES);
      if (!/^multipart\/form-data/i.test(contentType)) throw new AppError('invalid_request_error', gatewayMessages.audioNotMultipart);
      let form: FormData;
      try {
        form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': contentType } }).formData();
      } catch {
        throw new AppError('invalid_request_error', gatewayMessages.audioNotMultipart);
      }
      const input = transcriptionInput(form, config.audioMaxBytes);
      verifier.markUsed(key.keyId);
      const requestId = requestIdOf(request);
      const digest = await formDigest(form);
      return withIdempotency({ idempotency, logger }, request, { owner: { userId: key.userId, keyId: ownKeyId(key) }, text: digest, requestId, stream: false }, () =>
        transcribe(keyPayer(key), input, requestId, request.signal),
      );
    },
  };
}

export type TranscriptionsHandler = ReturnType<typeof createTranscriptionsHandler>;
