// Every JSON body the service takes from outside is parsed here. A body under the size limit can nest
// 100,000 levels deep: JSON.parse copes, but what comes after does not (writing it to jsonb overflowed the
// stack: a 500), and nobody's real data nests that far. So nesting past MAX_JSON_DEPTH is refused with a
// 400 before the value is used or stored.
import { AppError, errorCodes } from './errors';
import { errorMessages } from './messages';

/** Levels of arrays and objects a body may have: far past any request or notification we take (a chat with tools, a VK event). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`: one pass over the characters, counting
 * brackets outside strings (iterative, so it cannot itself overflow the stack). Not a validator: text
 * that is not JSON is left to JSON.parse.
 */
export function nestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  // Fewer characters than levels cannot open them all.
  if (text.length <= limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // A string's text is skipped by the engine's own search for its closing quote, so the cost is in the
      // structure, not in the words (a chat body is mostly words): a quote after an odd run of
      // backslashes is escaped, and the search goes on.
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end === -1) return false;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
        i = end;
        if (slashes % 2 === 0) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** The 400 for a body nested too deep, in the one error shape (with OpenAI's invalid_json code on /v1). */
export function tooDeepError(): AppError {
  return new AppError('invalid_request_error', errorMessages.jsonTooDeep(MAX_JSON_DEPTH), { code: errorCodes.invalidJson });
}

/** Throws the 400 when the text nests deeper than MAX_JSON_DEPTH. */
export function assertJsonDepth(text: string): void {
  if (nestsDeeperThan(text)) throw tooDeepError();
}

/**
 * JSON.parse for a body from outside: too deep is the AppError above, text that is not JSON is
 * JSON.parse's SyntaxError (each caller answers that its own way).
 */
export function parseJsonBody(text: string): unknown {
  assertJsonDepth(text);
  return JSON.parse(text);
}

/** The request, once the JSON of its query's `input` (a tRPC query's input rides in the URL) passed the depth check. */
export function withQueryInputChecked(request: Request): Request {
  const input = new URL(request.url).searchParams.get('input');
  if (input) assertJsonDepth(input);
  return request;
}
