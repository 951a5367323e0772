#!/bin/bash
# Diagnostic copies of Conduit for bench/RESULTS.md: each is `git archive HEAD` with named changes applied,
# written to bench/.tmp/variants/<name> (git-ignored); src/ itself is never touched. Run one with
#   BENCH_CONDUIT_DIR=bench/.tmp/variants/<name> npm run bench
# Usage: bench/variants.sh name=change+change ...   e.g. bench/variants.sh nowrite=nowrite relay=relay+nometer
# Changes (each a measurement device, not a proposed patch as is):
#   base         none
#   nowrite      settlements queued but never written (DB writes off; the books check fails by design)
#   smallbatch   maxBatch 500 instead of 5000 (and so a backlog bound of 1000)
#   ledgerperrequest  a ledger row per settlement, as before d65e425, instead of one per user and kind a batch
#   noprepare    postgres.js with prepare: false
#   nozod        chat body not validated by zod
#   noelysia     POST /v1/chat/completions dispatched before Elysia's router
#   relay        no whole-answer path: every stream goes through the relay stream, as a slowly streamed answer does
#   bodystream   request bodies read through the counting JS reader even when their length is declared
#   nofilter / nometer / notimer   stream path without the usage filter / the SSE meter / the per-chunk timer restart
#   passthrough  stream handed to the client as the floor does (no relay, not metered)
#   nometrics    no metrics recorded on the request path: the /v1 handlers get no observer (upstream timing, TTFT),
#                billing's observer no longer records settled tokens/cost, unpaid amounts or lease top-ups (it still
#                spends tokens per minute, counts cut answers and announces charges: those are not metrics), and
#                no per-request route counter; GET /metrics still answers. `npm run bench` builds it itself for the
#                "metrics cost" target (BENCH_COMPARE).
# VARIANT_SOURCE=<dir>: copy src/, drizzle/, package.json, tsconfig.json from that directory (e.g. the working
# tree, `.`) instead of exporting HEAD. VARIANT_DIR=<dir>: write the copies there instead of bench/.tmp/variants.
# (flushfix, jsonbatch, bigbatch and notokenizer, measured in the first RESULTS.md, are now the code itself: eae427c, 163e750.)
set -euo pipefail
[ -z "${VARIANT_SOURCE:-}" ] || VARIANT_SOURCE=$(cd "$VARIANT_SOURCE" && pwd)
cd "$(dirname "$0")/.."
V=${VARIANT_DIR:-bench/.tmp/variants}

mk() {
  rm -rf "$V/$1"; mkdir -p "$V/$1"
  if [ -n "${VARIANT_SOURCE:-}" ]; then
    cp -R "$VARIANT_SOURCE/src" "$VARIANT_SOURCE/drizzle" "$VARIANT_SOURCE/package.json" "$VARIANT_SOURCE/tsconfig.json" "$V/$1/"
  else
    git archive HEAD src drizzle package.json tsconfig.json | tar -x -C "$V/$1"
  fi
}
must() { grep -q "$2" "$1" || { echo "patch did not apply: $2 in $1" >&2; exit 1; }; }

base() { :; }
nowrite() {
  sed -i 's/^  private async writeBatch(batch: Pending\[\]) {$/&\n    if (batch.length >= 0) return;/' "$1/src/gateway/billing/writer.ts"
  must "$1/src/gateway/billing/writer.ts" 'if (batch.length >= 0) return;'
}
noprepare() {
  sed -i 's/^      max: options.maxConnections ?? 10,$/&\n      prepare: false,/' "$1/src/db/client.ts"
  must "$1/src/db/client.ts" 'prepare: false'
}
nozod() {
  sed -i 's#const parsed = chatRequestSchema.safeParse(json);#const parsed = { success: true, data: json } as any;#' "$1/src/gateway/chat.ts"
  must "$1/src/gateway/chat.ts" 'success: true, data: json'
}
noelysia() {
  sed -i "s#^              : await app.handle(request));#              : request.method === 'POST' \&\& request.url.endsWith('/v1/chat/completions') ? await services.chat.handle(request) : await app.handle(request));#" "$1/src/server.ts"
  must "$1/src/server.ts" 'services.chat.handle(request)'
}
nofilter() { sed -i 's#^      filter: stream ? (clientWantsUsage ? .cost. : .strip.) : null,#      filter: null,#' "$1/src/gateway/chat.ts"; must "$1/src/gateway/chat.ts" 'filter: null,'; }
nometer() { sed -i -e 's#^        meter.push(value);#        // meter off#' -e 's#^      meter.pushText(text);#      // meter off (text)#' "$1/src/gateway/chat.ts"; must "$1/src/gateway/chat.ts" '// meter off'; must "$1/src/gateway/chat.ts" '// meter off (text)'; }
notimer() { sed -i 's#^        deadline = performance.now() + config.upstreamTimeoutMs;#        // timer restart off#' "$1/src/gateway/chat.ts"; must "$1/src/gateway/chat.ts" '// timer restart off'; }
smallbatch() {
  sed -i 's/const maxBatch = options.maxBatch ?? 5_000;/const maxBatch = options.maxBatch ?? 500;/' "$1/src/gateway/billing/context.ts"
  must "$1/src/gateway/billing/context.ts" 'options.maxBatch ?? 500;'
}
ledgerperrequest() {
  python3 - "$1/src/gateway/billing/rows.ts" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
old = """  select user_id, -sum(cost_nano), case when agent_id is null then 'usage' else 'assistant_usage' end,
    'requests:' || count(*), max(created_at)
  from r where cost_nano > 0
  group by user_id, agent_id is null"""
assert old in s, 'patch did not apply: the per-batch ledger rows in billing/rows.ts'
s = s.replace(old, """  select user_id, -cost_nano, case when agent_id is null then 'usage' else 'assistant_usage' end,
    'request:' || request_id, created_at
  from r where cost_nano > 0""")
open(p, 'w').write(s)
PY
}
relay() {
  sed -i 's#^  return Promise.race(\[promise, timer\]);#  void promise.catch(() => {}); void timer; return Promise.resolve(NOT_YET);#' "$1/src/gateway/chat.ts"
  must "$1/src/gateway/chat.ts" 'return Promise.resolve(NOT_YET);'
}
bodystream() {
  sed -i 's#^        ? await request.text()#        ? await readBodyText(request, config.bodyLimitBytes)#' "$1/src/gateway/chat.ts"
  must "$1/src/gateway/chat.ts" '? await readBodyText(request, config.bodyLimitBytes)'
}
nometrics() {
  # src/gateway/api.ts (where services.ts's gateway is wired since the billing observer moved there): the chat
  # handler's and the other /v1 handlers' `observer: metrics` (upstream timing, TTFT, dropped streams), and in
  # billing's observer the three metric calls (settled: duration, tokens, cost; unpaid; lease top-ups). The rest
  # of that observer (tokens per minute, cut answers, charged events) is behaviour, not metrics: it stays.
  local a="$1/src/gateway/api.ts" v="$1/src/server.ts"
  sed -i -e 's/observer: metrics\b/observer: undefined/g' \
    -e 's/^      settled: (facts, cost) => {$/      settled: (facts, _cost) => {/' \
    -e 's/^        metrics\.settled(facts, cost\.totalNano);$/        \/\/ metrics off: settled/' \
    -e 's/^      unpaid: (nano) => metrics\.unpaid(nano),$/      unpaid: () => {}, \/\/ metrics off: unpaid/' \
    -e 's/^      topUp: (lease, outcome) => metrics\.leaseTopUp(lease, outcome),$/      topUp: () => {}, \/\/ metrics off: top-ups/' "$a"
  must "$a" 'observer: undefined,'
  must "$a" '// metrics off: settled'
  must "$a" '// metrics off: unpaid'
  must "$a" '// metrics off: top-ups'
  ! grep -q 'observer: metrics' "$a" || { echo "patch did not apply: observer: metrics left in $a" >&2; exit 1; }
  # src/server.ts: the per-request route/status counter.
  sed -i 's/services\.metrics\.request(/false \&\& services.metrics.request(/' "$v"
  must "$v" 'false && services.metrics.request('
}
passthrough() {
  python3 - "$1/src/gateway/chat.ts" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
old = '    return relayStream(response.body, {'
assert old in s
s = s.replace(old, """    if (stream) {
      cleanup();
      billing.settle(reservation, { ...base, promptTokens: 0, completionTokens: 0, totalTokens: 0, status: 'ok', usageSource: 'none', upstreamStatus: 200, durationMs: 0 });
      return new Response(response.body, { status: 200, headers: SSE_HEADERS });
    }
""" + old, 1)
open(p, 'w').write(s)
PY
}

[ $# -gt 0 ] || { sed -n '2,25p' "$0"; exit 2; }
for spec in "$@"; do
  name=${spec%%=*}; changes=${spec#*=}
  [ "$name" != "$spec" ] || changes=$name
  mk "$name"
  for change in ${changes//+/ }; do "$change" "$V/$name"; done
  echo "$V/$name: ${changes//+/ + }"
done
