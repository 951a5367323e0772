// Each request gets an id: taken from a sane incoming X-Request-Id or made here, echoed in the response.
const requestIds = new WeakMap<Request, string>();
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function assignRequestId(request: Request): string {
  const incoming = request.headers.get('x-request-id');
  const id = incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
  requestIds.set(request, id);
  return id;
}

export function requestIdOf(request: Request): string {
  return requestIds.get(request) ?? 'unknown';
}
