// The fake upstream's POST {url}/audio/transcriptions, as OpenAI answers it: a multipart form in, the
// transcript out in the asked response_format. What it hears is `fake.transcript` (TRANSCRIPT by default),
// `fake.audioSeconds` long (AUDIO_SECONDS by default) whatever the bytes.
//
//   json          {text, usage: {type: "duration", seconds: ⌈duration⌉}} (whisper-1's shape)
//   verbose_json  {task, language, duration, text, segments: [one segment over the whole audio], usage as json}
//   text          the transcript and a line break (text/plain); srt and vtt: one cue over the whole audio
// Models:
//   fake/gpt-4o-transcribe*  a token-billed model as gpt-4o-transcribe: json's usage is
//                 {type: "tokens", input_tokens: TRANSCRIPTION_TOKENS.input, input_token_details, output_tokens, total_tokens};
//                 anything but json and text is refused with OpenAI's 400
//   fake/no-usage  no usage at all (verbose_json still has duration)
//   fake/error-500  500 server_error; fake/not-found*  404 model_not_found
// The form is recorded as the request's body: {fields: {name: value | value[]}, file: {name, type, bytes}}.

export const TRANSCRIPT = 'Здравствуйте, хочу записаться на стрижку в субботу.';
export const AUDIO_SECONDS = 7.25;
export const TRANSCRIPTION_TOKENS = { input: 73, output: 11 } as const;

export interface RecordedForm {
  fields: Record<string, string | string[]>;
  file: { name: string; type: string; bytes: Uint8Array } | null;
}

/** A multipart request's form as the fake records it. */
export async function recordedForm(request: Request): Promise<RecordedForm> {
  const form = await request.formData();
  const recorded: RecordedForm = { fields: {}, file: null };
  for (const [name, entry] of form.entries()) {
    const value = entry as unknown as string | File;
    if (typeof value !== 'string') {
      recorded.file = { name: value.name, type: value.type, bytes: new Uint8Array(await value.arrayBuffer()) };
      continue;
    }
    const before = recorded.fields[name];
    recorded.fields[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return recorded;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const error = (status: number, message: string, type: string, code: string | null = null, param: string | null = null) =>
  json(status, { error: { message, type, param, code } });

function clock(seconds: number, separator: string) {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

export function transcriptionAnswer(form: RecordedForm, heard: { transcript: string; seconds: number }): Response {
  const model = typeof form.fields.model === 'string' ? form.fields.model : '';
  if (!form.file) return error(400, "Could not parse multipart form: 'file' is required", 'invalid_request_error', null, 'file');
  if (!model) return error(400, 'you must provide a model parameter', 'invalid_request_error', null, 'model');
  if (model.startsWith('fake/not-found'))
    return error(404, `The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
  if (model === 'fake/error-500') return error(500, 'The server had an error while processing your request. Sorry about that!', 'server_error');
  const format = typeof form.fields.response_format === 'string' ? form.fields.response_format : 'json';
  const tokenModel = model.startsWith('fake/gpt-4o-transcribe');
  if (tokenModel && format !== 'json' && format !== 'text') {
    return error(
      400,
      `response_format '${format}' is not compatible with model '${model}'. Use 'json' or 'text' instead.`,
      'invalid_request_error',
      'unsupported_value',
      'response_format',
    );
  }
  const { transcript: text, seconds } = heard;
  const usage =
    model === 'fake/no-usage'
      ? undefined
      : tokenModel
        ? {
            type: 'tokens',
            input_tokens: TRANSCRIPTION_TOKENS.input,
            input_token_details: { text_tokens: 0, audio_tokens: TRANSCRIPTION_TOKENS.input },
            output_tokens: TRANSCRIPTION_TOKENS.output,
            total_tokens: TRANSCRIPTION_TOKENS.input + TRANSCRIPTION_TOKENS.output,
          }
        : { type: 'duration', seconds: Math.ceil(seconds) };
  switch (format) {
    case 'json':
      return json(200, { text, ...(usage ? { usage } : {}) });
    case 'verbose_json':
      return json(200, {
        task: 'transcribe',
        language: typeof form.fields.language === 'string' ? form.fields.language : 'russian',
        duration: seconds,
        text,
        segments: [
          {
            id: 0,
            seek: 0,
            start: 0,
            end: seconds,
            text: ` ${text}`,
            tokens: [50364],
            temperature: 0,
            avg_logprob: -0.2,
            compression_ratio: 1.1,
            no_speech_prob: 0.01,
          },
        ],
        ...(usage ? { usage } : {}),
      });
    case 'text':
      return new Response(`${text}\n`, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    case 'srt':
      return new Response(`1\n${clock(0, ',')} --> ${clock(seconds, ',')}\n${text}\n`, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    case 'vtt':
      return new Response(`WEBVTT\n\n${clock(0, '.')} --> ${clock(seconds, '.')}\n${text}\n`, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    default:
      return error(
        400,
        `Invalid value: '${format}'. Supported values are: 'json', 'text', 'srt', 'verbose_json', and 'vtt'.`,
        'invalid_request_error',
        'invalid_value',
        'response_format',
      );
  }
}
