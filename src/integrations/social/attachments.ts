// What a client's VK message carries besides its text (docs/integrations/vk.md §5): a voice message with
// VK's transcript, photos, a sticker. Only the message's own attachments count: forwarded messages and the
// message replied to are someone's earlier words, not what the client says now.
import type { MessageMedia } from '../../assistant';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const httpUrl = (v: unknown): string | null => (typeof v === 'string' && /^https?:\/\//i.test(v) ? v : null);

/** The letters VK names sizes by, largest first (vk-io LARGE_SIZES), for sizes without width and height. */
const SIZE_LETTERS = ['w', 'z', 'y', 'r', 'q', 'p', 'o', 'x', 'm', 's'];

/**
 * The largest version of a photo: `orig_photo` when VK sends it, else the size with the most pixels, else
 * by letter (photos from before 2012 have width and height 0). Size items may name their URL `src`.
 */
export function largestPhotoUrl(photo: Json): string | null {
  const orig = obj(photo.orig_photo);
  const origUrl = orig ? httpUrl(orig.url) : null;
  if (origUrl) return origUrl;
  const sizes = (Array.isArray(photo.sizes) ? photo.sizes : [])
    .map(obj)
    .filter((s): s is Json => s !== null)
    .map((s) => ({
      url: httpUrl(s.url) ?? httpUrl(s.src),
      pixels: (Number(s.width) || 0) * (Number(s.height) || 0),
      rank: SIZE_LETTERS.indexOf(String(s.type)),
    }))
    .filter((s): s is { url: string; pixels: number; rank: number } => s.url !== null);
  if (sizes.length === 0) return null;
  sizes.sort((a, b) => b.pixels - a.pixels || (a.rank === -1 ? 99 : a.rank) - (b.rank === -1 ? 99 : b.rank));
  return sizes[0]!.url;
}

export function readMedia(message: Json): MessageMedia {
  const media: MessageMedia = { voice: null, photos: [], sticker: false };
  const attachments = Array.isArray(message.attachments) ? message.attachments : [];
  for (const raw of attachments) {
    const attachment = obj(raw);
    if (!attachment || typeof attachment.type !== 'string') continue;
    const body = obj(attachment[attachment.type]);
    if (!body) continue;
    switch (attachment.type) {
      case 'audio_message': {
        // `done` may come without a transcript (nothing recognised); `in_progress` has none yet.
        const transcript = typeof body.transcript === 'string' ? body.transcript.trim() : '';
        const done = body.transcript_state === undefined || body.transcript_state === 'done';
        media.voice = { transcript: done && transcript !== '' ? transcript : null, audioUrl: httpUrl(body.link_ogg) ?? httpUrl(body.link_mp3) };
        break;
      }
      case 'photo': {
        const url = largestPhotoUrl(body);
        if (url) media.photos.push(url);
        break;
      }
      case 'sticker':
        media.sticker = true;
        break;
      default:
        break;
    }
  }
  return media;
}
