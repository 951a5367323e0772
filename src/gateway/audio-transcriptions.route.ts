// POST /v1/audio/transcriptions: OpenAI's transcription call (gateway/audio-transcriptions.ts), billed to the API key.
import { defineRawRoute } from '../http/raw-route';
import { AUDIO_TRANSCRIPTIONS_PATH } from './audio-limit';
import type { TranscriptionsHandler } from './audio-transcriptions';
import { AUDIO_TRANSCRIPTIONS_OPERATION } from './v1.openapi';

export const audioTranscriptionsRoute = defineRawRoute<{ transcriptions: Pick<TranscriptionsHandler, 'handle'> }>({
  method: 'POST',
  path: AUDIO_TRANSCRIPTIONS_PATH,
  auth: 'apiKey',
  info: 'audioTranscriptions',
  parse: 'none',
  openapi: { operation: AUDIO_TRANSCRIPTIONS_OPERATION },
  handle: ({ request }, { transcriptions }) => transcriptions.handle(request),
});
