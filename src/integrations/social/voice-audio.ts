// A VK voice message's audio (an audio_message's link_ogg / link_mp3, on VK's CDN), fetched for the owner's
// own transcription. Only from the bases VK_AUDIO_BASE_URLS allows (a link is the client's message, so it
// must not send the server to an address of the client's choosing), within AUDIO_MAX_BYTES and a timeout.

/** How long a download may take, headers to last byte. */
const DOWNLOAD_TIMEOUT_MS = 15_000;

export interface VoiceAudio {
  bytes: Uint8Array<ArrayBuffer>;
  /** The file's name as the link ends (a.ogg), for the transcription's form. */
  filename: string;
  type: string;
}

export class VoiceDownloadError extends Error {
  override name = 'VoiceDownloadError';
}

/** Whether `link` is under one of `bases`: the same scheme and port, the base's host or a host under it. */
export function allowedAudioLink(link: string, bases: readonly string[]): boolean {
  if (!URL.canParse(link)) return false;
  const url = new URL(link);
  return bases.some((text) => {
    if (!URL.canParse(text)) return false;
    const base = new URL(text);
    const hostOk = url.hostname === base.hostname || url.hostname.endsWith(`.${base.hostname}`);
    return url.protocol === base.protocol && url.port === base.port && hostOk && url.pathname.startsWith(base.pathname.replace(/\/$/, ''));
  });
}

export function createVoiceAudioClient(options: { baseUrls: readonly string[]; maxBytes: number; timeoutMs?: number }) {
  return {
    async download(link: string): Promise<VoiceAudio> {
      if (!allowedAudioLink(link, options.baseUrls)) throw new VoiceDownloadError('the voice message link is not on an allowed host (VK_AUDIO_BASE_URLS)');
      const response = await fetch(link, { signal: AbortSignal.timeout(options.timeoutMs ?? DOWNLOAD_TIMEOUT_MS), redirect: 'error' });
      if (!response.ok) throw new VoiceDownloadError(`the voice message audio answered ${response.status}`);
      const declared = Number(response.headers.get('content-length') ?? 0);
      if (declared > options.maxBytes) throw new VoiceDownloadError('the voice message audio is over AUDIO_MAX_BYTES');
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.byteLength === 0 || bytes.byteLength > options.maxBytes) throw new VoiceDownloadError('the voice message audio is empty or over AUDIO_MAX_BYTES');
      const filename = new URL(link).pathname.split('/').pop() || 'voice.ogg';
      return { bytes, filename, type: response.headers.get('content-type') ?? 'audio/ogg' };
    },
  };
}
