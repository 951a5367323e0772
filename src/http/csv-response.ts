// A CSV file (whole, or streamed as it is read) as every export answers it: a download with its name, never kept by a cache (it holds the
// account's or the operator's figures, and a second request must see the data as it is then).
export function csvResponse(body: string | ReadableStream<Uint8Array>, fileName: string): Response {
  return new Response(body, {
    headers: {
      'content-type': 'text/csv; charset=utf-8; header=present',
      'content-disposition': `attachment; filename="${fileName}"`,
      'cache-control': 'no-store',
    },
  });
}
