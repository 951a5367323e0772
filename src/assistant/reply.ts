// What the assistant says to a client, whatever carries it: a text and rows of buttons under it. A channel
// (VK today, Telegram later) renders it in its own wire format and fits it to its own limits (label
// lengths, payload sizes, buttons per keyboard) — see channel.ts; the assistant only chooses what to offer.

/** What a button hands back when pressed; `action` is how the assistant routes the press. */
export interface ButtonPayload {
  action: string;
  [key: string]: unknown;
}

/** How a button stands out: the main choice, a side one, a yes, a no or a way out. */
export type ButtonStyle = 'primary' | 'secondary' | 'positive' | 'negative';

/** A press comes back to the assistant with `payload`. */
export interface CallbackButton {
  kind: 'callback';
  label: string;
  payload: ButtonPayload;
  style?: ButtonStyle;
}

/** Opens a page (a payment link); nothing comes back when it is pressed. */
export interface LinkButton {
  kind: 'link';
  label: string;
  url: string;
}

export type ReplyButton = CallbackButton | LinkButton;

/** Buttons by row, shown with the message they belong to. */
export type ReplyButtons = ReplyButton[][];

export interface Reply {
  text: string;
  buttons?: ReplyButtons;
}

export function callbackButton(label: string, payload: ButtonPayload, style?: ButtonStyle): CallbackButton {
  return style === undefined ? { kind: 'callback', label, payload } : { kind: 'callback', label, payload, style };
}

/**
 * A button that opens `url` in the client's browser. Checked here, where the tool that offers it can still
 * fail as a tool: a link that is not a web page opens nowhere on any client.
 */
export function linkButton(label: string, url: string): LinkButton {
  if (!/^https?:\/\//i.test(url)) throw new RangeError('a link button needs an http(s) link');
  return { kind: 'link', label, url };
}

/**
 * A label made of data (a service's or a specialist's name, a product's title) as one line: the names
 * come with the line breaks and double spaces of whoever typed them. How long a label may be is the
 * channel's to decide.
 */
export function dataLabel(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
