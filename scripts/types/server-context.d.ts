// What the types package (dist/types) says of src/trpc/init.ts: the request context and the procedures'
// OpenAPI meta are the server's business. Their real types reach the whole server (database, Bun, every
// service); a client never sees either, so here they are opaque, and the package needs no server source.
// The router's declaration names nothing else from init.ts: should it start to, the build fails on it.
export type Context = object;
export type ProcedureMeta = object;
