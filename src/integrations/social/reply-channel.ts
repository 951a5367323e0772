// The assistant's replies in VK: its buttons as an inline keyboard of messages.send (keyboards.ts checks
// VK's limits), the message queued in the outbox (sender.ts). The stored last keyboard is VK's JSON as it
// was sent, so it is read back here too.
import type { ReplyChannel, ShownButtons, ReplyButtons } from '../../assistant';
import { callbackButton, fitLabel, KEYBOARD_LIMITS, keyboard, linkButton, type VkKeyboard } from './keyboards';
import { queueSocialMessage, SOCIAL_CHANNEL } from './sender';

/**
 * The reply's buttons as VK's inline keyboard: the assistant's buttons always sit under their message. A
 * label past VK's 40 characters (a long service or product name) is cut with «…»; a shorter one is sent as
 * the assistant wrote it.
 */
export function vkKeyboardOf(buttons: ReplyButtons): VkKeyboard {
  return keyboard(
    buttons.map((row) =>
      row.map((button) =>
        button.kind === 'link'
          ? linkButton(button.label, button.url)
          : callbackButton(button.label.length > KEYBOARD_LIMITS.labelChars ? fitLabel(button.label) : button.label, button.payload, button.style),
      ),
    ),
    { inline: true },
  );
}

/** A keyboard's buttons as the client saw them; `stored` is a keyboard this channel sent, read back from jsonb. */
export function shownButtons(stored: unknown): ShownButtons {
  const rows = (stored as VkKeyboard | null)?.buttons;
  if (!Array.isArray(rows)) return [];
  return rows.map((row) =>
    (Array.isArray(row) ? row : [row]).flatMap((button) => {
      const action = button?.action;
      if (!action || typeof action.label !== 'string') return [];
      // An open_link button brings nothing back.
      return [{ label: action.label, payload: typeof action.payload === 'string' ? action.payload : '' }];
    }),
  );
}

export const vkReplyChannel: ReplyChannel = {
  name: SOCIAL_CHANNEL,
  async queue(executor, dialogue, reply, options = {}) {
    const vkKeyboard = reply.buttons ? vkKeyboardOf(reply.buttons) : undefined;
    await queueSocialMessage(executor, {
      agentId: dialogue.agentId,
      peerId: Number(dialogue.peerId),
      text: reply.text,
      ...(vkKeyboard ? { keyboard: vkKeyboard } : {}),
      ...(options.keepKeyboard ? { keepKeyboard: true } : {}),
    });
    return vkKeyboard ? shownButtons(vkKeyboard) : null;
  },
  lastButtons: (dialogue) => shownButtons(dialogue.lastKeyboard),
};
