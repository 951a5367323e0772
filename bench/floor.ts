// The floor: the least a proxy on Bun can do. It forwards the request body to the upstream with fetch
// and hands back the upstream's answer (a stream passed through as a stream), with no authentication,
// no reservation and no accounting. Conduit is measured against it. Run as its own process
// (`UPSTREAM_URL=http://127.0.0.1:<port>/v1/chat/completions bun bench/floor.ts`); prints `READY <port>`.
const upstreamUrl = process.env.UPSTREAM_URL;
if (!upstreamUrl) {
  process.stderr.write('floor: UPSTREAM_URL is not set\n');
  process.exit(2);
}

const FORWARD_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  // Lets the fake upstream count the floor's requests apart from Conduit's.
  'x-bench-origin': 'floor',
};

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  idleTimeout: 60,
  async fetch(request) {
    const upstream = await fetch(upstreamUrl, {
      method: 'POST',
      headers: FORWARD_HEADERS,
      body: await request.arrayBuffer(),
      signal: request.signal,
    });
    const contentType = upstream.headers.get('content-type') ?? 'application/json';
    if (contentType.includes('text/event-stream') && upstream.body) {
      return new Response(upstream.body, {
        status: upstream.status,
        headers: { 'content-type': contentType, 'cache-control': 'no-cache' },
      });
    }
    // A JSON answer is read whole and sent with a length, as Conduit does.
    return new Response(await upstream.text(), { status: upstream.status, headers: { 'content-type': contentType } });
  },
});

process.stdout.write(`READY ${server.port}\n`);

// A module, so its top-level names stay its own.
export {};
