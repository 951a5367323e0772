// Bot keyboards in the JSON shape messages.send takes in its `keyboard` parameter
// (docs/integrations/vk.md §4). VK rejects a whole message with error 911 when any part of the keyboard
// is off, so the limits are checked here, where the offending label or payload is still known.

export type ButtonColor = 'primary' | 'secondary' | 'positive' | 'negative';

/** What a button hands back to the bot; `action` is how the assistant routes the press. */
export interface ButtonPayload {
  action: string;
  [key: string]: unknown;
}

export interface VkCallbackButton {
  action: { type: 'callback'; label: string; payload: string };
  color?: ButtonColor;
}

export interface VkTextButton {
  action: { type: 'text'; label: string; payload: string };
  color?: ButtonColor;
}

/** Opens a page (a payment link); VK sends the bot nothing when it is pressed. */
export interface VkLinkButton {
  action: { type: 'open_link'; label: string; link: string; payload?: string };
}

export type VkButton = VkCallbackButton | VkTextButton | VkLinkButton;

export interface VkKeyboard {
  one_time: boolean;
  inline: boolean;
  buttons: VkButton[][];
}

export interface KeyboardOptions {
  /** Shown inside the message instead of under the input field. */
  inline?: boolean;
  /** Hide after a text button press; VK does not support it together with `inline`. */
  one_time?: boolean;
}

export const KEYBOARD_LIMITS = {
  labelChars: 40,
  /** VK counts characters; bytes are checked because they are never fewer, so Cyrillic payloads stay safe. */
  payloadBytes: 255,
  standard: { buttonsPerRow: 5, rows: 10, buttons: 40 },
  inline: { buttonsPerRow: 5, rows: 6, buttons: 10 },
} as const;

const COLORS: ReadonlySet<string> = new Set<ButtonColor>(['primary', 'secondary', 'positive', 'negative']);

/** A keyboard VK would refuse (error 911). Raised while building, never sent. */
export class VkKeyboardError extends RangeError {
  override readonly name = 'VkKeyboardError';
}

/** Pressing it produces a `message_event`, which must be answered with sendMessageEventAnswer. */
export function callbackButton(label: string, payload: ButtonPayload, color?: ButtonColor): VkCallbackButton {
  return button('callback', label, payload, color);
}

/** For clients whose `button_actions` lack `callback`: the press arrives as `message_new` with the payload. */
export function textButton(label: string, payload: ButtonPayload, color?: ButtonColor): VkTextButton {
  return button('text', label, payload, color);
}

/** A button that opens `link` (http or https) in the client's browser. */
export function linkButton(label: string, link: string): VkLinkButton {
  if (!/^https?:\/\//i.test(link)) throw new VkKeyboardError('an open_link button needs an http(s) link');
  return { action: { type: 'open_link', label: fitLabel(label), link } };
}

export function keyboard(rows: VkButton[][], options: KeyboardOptions = {}): VkKeyboard {
  const inline = options.inline === true;
  const oneTime = options.one_time === true;
  if (inline && oneTime) throw new VkKeyboardError('one_time is not supported by inline keyboards');

  const limits = inline ? KEYBOARD_LIMITS.inline : KEYBOARD_LIMITS.standard;
  const kind = inline ? 'an inline' : 'a standard';
  if (rows.length > limits.rows) {
    throw new VkKeyboardError(`${kind} keyboard holds at most ${limits.rows} rows, got ${rows.length}`);
  }
  let total = 0;
  rows.forEach((row, index) => {
    if (row.length === 0) throw new VkKeyboardError(`row ${index + 1} is empty`);
    if (row.length > limits.buttonsPerRow) {
      throw new VkKeyboardError(`row ${index + 1} has ${row.length} buttons, at most ${limits.buttonsPerRow} fit`);
    }
    total += row.length;
  });
  if (total > limits.buttons) {
    throw new VkKeyboardError(`${kind} keyboard holds at most ${limits.buttons} buttons, got ${total}`);
  }
  return { one_time: oneTime, inline, buttons: rows.map((row) => row.map((b) => structuredClone(b))) };
}

/** Sent as `keyboard`, removes the standard keyboard from the conversation. */
export function removeKeyboard(): VkKeyboard {
  return { one_time: false, inline: false, buttons: [] };
}

/** Shortens text that comes from data (service or specialist names) to a label VK accepts. */
export function fitLabel(text: string): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= KEYBOARD_LIMITS.labelChars) return clean;
  // Cutting a surrogate pair in half would leave an invalid character in the label.
  let cut = clean.slice(0, KEYBOARD_LIMITS.labelChars - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

function button<T extends 'callback' | 'text'>(
  type: T,
  label: string,
  payload: ButtonPayload,
  color?: ButtonColor,
): { action: { type: T; label: string; payload: string }; color?: ButtonColor } {
  if (typeof label !== 'string' || label.trim() === '') throw new VkKeyboardError('a button needs a label');
  // UTF-16 length, as vk-io counts: never below the number of characters VK sees.
  if (label.length > KEYBOARD_LIMITS.labelChars) {
    throw new VkKeyboardError(`label "${label}" is longer than ${KEYBOARD_LIMITS.labelChars} characters`);
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new VkKeyboardError('payload must be an object');
  }
  if (typeof payload.action !== 'string' || payload.action === '') {
    throw new VkKeyboardError('payload.action must be a non-empty string');
  }
  let json: string;
  try {
    json = JSON.stringify(payload);
  } catch {
    throw new VkKeyboardError(`payload of "${label}" cannot be encoded as JSON`);
  }
  const bytes = new TextEncoder().encode(json).length;
  if (bytes > KEYBOARD_LIMITS.payloadBytes) {
    throw new VkKeyboardError(`payload of "${label}" is ${bytes} bytes, at most ${KEYBOARD_LIMITS.payloadBytes} are allowed`);
  }
  if (color !== undefined && !COLORS.has(color)) throw new VkKeyboardError(`unknown button color "${color}"`);

  const out: { action: { type: T; label: string; payload: string }; color?: ButtonColor } = {
    action: { type, label, payload: json },
  };
  if (color !== undefined) out.color = color;
  return out;
}
