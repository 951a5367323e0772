// LIKE patterns from what a person typed (the operator's account and audit searches, the inbox search, the
// booking cache's key prefixes): LIKE's wildcards and its escape character match literally.

const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Matches values containing `text`: a search for "a_b%" finds exactly that. */
export function likeContains(text: string): string {
  return `%${literal(text)}%`;
}

/** Matches values starting with `prefix`. */
export function likePrefix(prefix: string): string {
  return `${literal(prefix)}%`;
}
