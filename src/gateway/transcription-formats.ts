// A transcription's answer in the format the client asked for, made from the JSON the provider gave when
// Conduit asked it for more (audio-transcriptions.ts: verbose_json carries the duration a per-second price
// needs, json the tokens a token price needs): `text` is the transcript and a line break, as OpenAI sends
// it; `srt` and `vtt` number the segments with their times.

export const TRANSCRIPTION_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'] as const;
export type TranscriptionFormat = (typeof TRANSCRIPTION_FORMATS)[number];

interface Segment {
  start: number;
  end: number;
  text: string;
}

/** The segments of a verbose_json answer (none when it has none: the whole text is one). */
function segmentsOf(answer: Record<string, unknown>): Segment[] {
  const raw = Array.isArray(answer.segments) ? answer.segments : [];
  const segments = raw
    .filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null)
    .map((s) => ({ start: Number(s.start) || 0, end: Number(s.end) || 0, text: typeof s.text === 'string' ? s.text.trim() : '' }));
  if (segments.length > 0) return segments;
  const duration = Number(answer.duration) || 0;
  return [{ start: 0, end: duration, text: typeof answer.text === 'string' ? answer.text.trim() : '' }];
}

/** 00:00:01,500 (srt) or 00:00:01.500 (vtt). */
function clock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

/** The client's `text`, `srt` or `vtt` answer from a provider's JSON answer. */
export function renderTranscription(format: 'text' | 'srt' | 'vtt', answer: Record<string, unknown>): string {
  if (format === 'text') return `${typeof answer.text === 'string' ? answer.text : ''}\n`;
  const segments = segmentsOf(answer);
  if (format === 'srt') {
    return segments.map((s, i) => `${i + 1}\n${clock(s.start, ',')} --> ${clock(s.end, ',')}\n${s.text}\n`).join('\n');
  }
  return `WEBVTT\n\n${segments.map((s) => `${clock(s.start, '.')} --> ${clock(s.end, '.')}\n${s.text}\n`).join('\n')}`;
}
