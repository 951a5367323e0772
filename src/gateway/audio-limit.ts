// The one /v1 route whose body may pass BODY_LIMIT_BYTES: a transcription's audio file may be AUDIO_MAX_BYTES
// (OpenAI's 25 MB), and its multipart form a little more for the other fields and the boundaries.
import type { Config } from '../config';

export const AUDIO_TRANSCRIPTIONS_PATH = '/v1/audio/transcriptions';

/** Room in a transcription's body beside the file: the fields, their headers and the boundaries. */
export const AUDIO_FORM_OVERHEAD_BYTES = 64 * 1024;

/** The body limit of a request to `path`: the transcription route's own, BODY_LIMIT_BYTES everywhere else. */
export function bodyLimitFor(path: string, config: Pick<Config, 'bodyLimitBytes' | 'audioMaxBytes'>): number {
  return path === AUDIO_TRANSCRIPTIONS_PATH ? Math.max(config.bodyLimitBytes, config.audioMaxBytes + AUDIO_FORM_OVERHEAD_BYTES) : config.bodyLimitBytes;
}
