// How long an audio file plays, read from its own header before it is sent anywhere: the bound a
// transcription is reserved for (audio-transcriptions.ts). WAV (the data chunk over the byte rate), Ogg
// Opus/Vorbis (the last page's granule position over the sample rate), MP3 (a Xing/Info or VBRI frame
// count, else the first frame's bitrate over the file's length) and WebM/Matroska (Segment Info's
// Duration). Anything else, or a header that does not parse, is null: the caller then reserves its cap.
// A header can lie; the request is settled by what the provider reports, so a lie only moves the bound.

/** Seconds of audio the header tells, or null when it tells none this reader understands. */
export function audioDurationSeconds(bytes: Uint8Array): number | null {
  const seconds = wavSeconds(bytes) ?? oggSeconds(bytes) ?? webmSeconds(bytes) ?? mp3Seconds(bytes);
  return seconds !== null && Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

const ascii = (bytes: Uint8Array, at: number, text: string) => {
  if (at + text.length > bytes.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
};
const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function wavSeconds(bytes: Uint8Array): number | null {
  if (!ascii(bytes, 0, 'RIFF') || !ascii(bytes, 8, 'WAVE')) return null;
  const v = view(bytes);
  let byteRate = 0;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = v.getUint32(at + 4, true);
    if (ascii(bytes, at, 'fmt ') && at + 20 <= bytes.length) byteRate = v.getUint32(at + 16, true);
    if (ascii(bytes, at, 'data')) {
      if (byteRate === 0) return null;
      // A header written before the length was known (streamed) says 0 or 0xFFFFFFFF: the rest of the file is the data.
      const dataBytes = size === 0 || size === 0xffffffff ? bytes.length - at - 8 : Math.min(size, bytes.length - at - 8);
      return dataBytes / byteRate;
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

function oggSeconds(bytes: Uint8Array): number | null {
  if (!ascii(bytes, 0, 'OggS') || bytes.length < 28) return null;
  const first = 27 + bytes[26]!;
  let rate: number;
  let preSkip = 0;
  const v = view(bytes);
  if (ascii(bytes, first, 'OpusHead') && first + 12 <= bytes.length) {
    // Opus granules count 48 kHz samples whatever the input rate.
    rate = 48_000;
    preSkip = v.getUint16(first + 10, true);
  } else if (bytes[first] === 1 && ascii(bytes, first + 1, 'vorbis') && first + 16 <= bytes.length) {
    rate = v.getUint32(first + 12, true);
  } else {
    return null;
  }
  if (rate === 0) return null;
  for (let at = bytes.length - 14; at >= 0; at--) {
    if (bytes[at] === 0x4f && ascii(bytes, at, 'OggS')) {
      const granule = Number(v.getBigInt64(at + 6, true));
      return granule > preSkip ? (granule - preSkip) / rate : null;
    }
  }
  return null;
}

/** An EBML variable-length integer at `at`: its value (the length marker kept for ids) and its width. */
function vint(bytes: Uint8Array, at: number, keepMarker: boolean): { value: number; width: number } | null {
  const head = bytes[at];
  if (head === undefined || head === 0) return null;
  const width = Math.clz32(head) - 23;
  if (width > 8 || at + width > bytes.length) return null;
  let value = keepMarker ? head : head & (0xff >> width);
  let allOnes = value === 0xff >> width;
  for (let i = 1; i < width; i++) {
    value = value * 256 + bytes[at + i]!;
    if (bytes[at + i] !== 0xff) allOnes = false;
  }
  return { value: !keepMarker && allOnes ? -1 : value, width };
}

const EBML_HEADER = 0x1a45dfa3;
const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;

function webmSeconds(bytes: Uint8Array): number | null {
  if (bytes.length < 4 || view(bytes).getUint32(0) !== EBML_HEADER) return null;
  const v = view(bytes);
  // Elements whose children are read (Segment, Info); any other is skipped whole.
  let at = 0;
  let end = bytes.length;
  let scale = 1_000_000;
  let duration: number | null = null;
  while (at < end) {
    const id = vint(bytes, at, true);
    if (!id) return null;
    const size = vint(bytes, at + id.width, false);
    if (!size) return null;
    const body = at + id.width + size.width;
    if (id.value === SEGMENT) {
      at = body;
      continue;
    }
    if (id.value === INFO) {
      end = size.value < 0 ? bytes.length : Math.min(bytes.length, body + size.value);
      at = body;
      continue;
    }
    if (size.value < 0) return null;
    if (id.value === TIMECODE_SCALE && size.value <= 8) {
      scale = 0;
      for (let i = 0; i < size.value; i++) scale = scale * 256 + bytes[body + i]!;
    } else if (id.value === DURATION && (size.value === 4 || size.value === 8) && body + size.value <= bytes.length) {
      duration = size.value === 4 ? v.getFloat32(body) : v.getFloat64(body);
    }
    at = body + size.value;
  }
  return duration === null ? null : (duration * scale) / 1e9;
}

/** kbit/s by [MPEG-1?][layer 1..3][index]. */
const BITRATES: Record<string, number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES = [44_100, 48_000, 32_000];

function mp3Seconds(bytes: Uint8Array): number | null {
  let start = 0;
  if (ascii(bytes, 0, 'ID3') && bytes.length >= 10) {
    const size = ((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f);
    start = 10 + size + (bytes[5]! & 0x10 ? 10 : 0);
  }
  // The first frame header within a few kilobytes of padding.
  const limit = Math.min(bytes.length - 4, start + 64 * 1024);
  for (let at = start; at < limit; at++) {
    if (bytes[at] !== 0xff || (bytes[at + 1]! & 0xe0) !== 0xe0) continue;
    const b1 = bytes[at + 1]!;
    const b2 = bytes[at + 2]!;
    const versionBits = (b1 >> 3) & 3; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
    const layerBits = (b1 >> 1) & 3; // 3 layer I, 2 layer II, 1 layer III
    const bitrateIndex = b2 >> 4;
    const rateIndex = (b2 >> 2) & 3;
    if (versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) continue;
    const mpeg1 = versionBits === 3;
    const layer = 4 - layerBits;
    const sampleRate = SAMPLE_RATES[rateIndex]! / (mpeg1 ? 1 : versionBits === 2 ? 2 : 4);
    const bitrate = BITRATES[`${mpeg1 ? 1 : 2}-${layer}`]![bitrateIndex]!;
    const samplesPerFrame = layer === 1 ? 384 : layer === 2 || mpeg1 ? 1152 : 576;
    const mono = bytes[at + 3]! >> 6 === 3;
    const xing = at + 4 + (mpeg1 ? (mono ? 17 : 32) : mono ? 9 : 17);
    const v = view(bytes);
    if ((ascii(bytes, xing, 'Xing') || ascii(bytes, xing, 'Info')) && xing + 12 <= bytes.length && v.getUint32(xing + 4) & 1) {
      return (v.getUint32(xing + 8) * samplesPerFrame) / sampleRate;
    }
    if (ascii(bytes, at + 36, 'VBRI') && at + 36 + 18 <= bytes.length) return (v.getUint32(at + 36 + 14) * samplesPerFrame) / sampleRate;
    return ((bytes.length - at) * 8) / (bitrate * 1000);
  }
  return null;
}
