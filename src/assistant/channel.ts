// The assistant's side of a messaging channel (VK's community messages today, a Telegram bot later):
// what a client's message brings besides its text, and the port through which the assistant's replies
// leave. The channel implements the port and hands it to the assistant it builds, so the assistant never
// imports a channel: the channel renders the reply in its own format and queues it in its outbox.
import type { Executor } from '../db/client';
import type { DialogueRow } from './flow';
import type { Reply } from './reply';

/** What a client's message carries besides its text: a voice message with its transcript, photos, a sticker. */
export interface MessageMedia {
  /**
   * A voice message: the channel's transcript, or null while there is none (in progress, nothing recognised,
   * old message); `audioUrl` where its audio can be downloaded (VK's link_ogg, else link_mp3), for the
   * owner's own transcription.
   */
  voice: { transcript: string | null; audioUrl?: string | null } | null;
  /** Each photo's largest size URL. */
  photos: string[];
  sticker: boolean;
}

/**
 * A button as the client saw it: its label as the channel showed it (cut to the channel's length), and the
 * JSON of the payload a press brings back ('' for a link button, which brings nothing). The transcript keeps
 * these (dialogue_messages.buttons); typed labels are matched against them.
 */
export interface ShownButton {
  label: string;
  payload: string;
}

export type ShownButtons = ShownButton[][];

export interface ReplyChannel {
  /** `dialogues.channel` of the dialogues this channel carries. */
  readonly name: string;
  /**
   * Queues `reply` for the dialogue's client with `executor`: it leaves when the caller's transaction commits.
   * The message becomes the client's last one, its buttons the ones whose labels act when typed — unless
   * `keepKeyboard` (a late answer leaves a keyboard sent since in force). Returns the buttons as the client
   * will see them, null when the reply has none.
   */
  queue(executor: Executor, dialogue: DialogueRow, reply: Reply, options?: { keepKeyboard?: boolean }): Promise<ShownButtons | null>;
  /** The buttons of the last message the client got on this channel (none when it had none). */
  lastButtons(dialogue: DialogueRow): ShownButtons;
}
