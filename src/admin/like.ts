// LIKE patterns from what an operator typed: the accounts' search and the audit's e-mail filter.

/** Escapes LIKE's wildcards (and its escape character) so a search for "a_b%" finds exactly that. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
