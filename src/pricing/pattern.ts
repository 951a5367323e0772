// What a price row may name, with no other imports: the dashboard's forms check it in the browser.

/** A model id as the gateway accepts it, or a prefix of one ending in `*` ("openai/*"), or `*` alone. */
export const PRICE_PATTERN = /^(\*|[A-Za-z0-9][A-Za-z0-9._:@+/-]*\*?)$/;
