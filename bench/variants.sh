#!/bin/bash
# Diagnostic copies of Conduit for bench/RESULTS.md: each is `git archive HEAD` with named changes applied,
# written to bench/.tmp/variants/<name> (git-ignored); src/ itself is never touched. Run one with
#   BENCH_CONDUIT_DIR=bench/.tmp/variants/<name> npm run bench
# Usage: bench/variants.sh name=change+change ...   e.g. bench/variants.sh nowrite=nowrite fixed=flushfix+jsonbatch+bigbatch
# Changes (each a measurement device, not a proposed patch as is):
#   base         none
#   nowrite      settlements queued but never written (DB writes off; the books check fails by design)
#   flushfix     flush() writes only what waited when it was called, then re-arms the timer
#   jsonbatch    usage and ledger rows inserted from one JSON parameter (constant statement text)
#   bigbatch     maxBatch 5000 instead of 500 (needs jsonbatch: 5000 rows × 16 columns exceeds PG's 65535 parameters)
#   noprepare    postgres.js with prepare: false
#   notokenizer  no gpt-tokenizer: tokens estimated as length / 4
#   nozod        chat body not validated by zod
#   noelysia     POST /v1/chat/completions dispatched before Elysia's router
#   nofilter / nometer / notimer   stream relay without the usage filter / the SSE meter / the per-chunk timer restart
#   directstream stream relay as a Bun direct ReadableStream (write + flush per chunk, no queue)
#   passthrough  stream handed to the client as the floor does (no relay, not metered)
set -euo pipefail
cd "$(dirname "$0")/.."
V=bench/.tmp/variants

mk() { rm -rf "$V/$1"; mkdir -p "$V/$1"; git archive HEAD src drizzle package.json tsconfig.json | tar -x -C "$V/$1"; }
must() { grep -q "$2" "$1" || { echo "patch did not apply: $2 in $1" >&2; exit 1; }; }

base() { :; }
nowrite() {
  sed -i 's/^  async function writeBatch(batch: Pending\[\]) {$/&\n    if (batch.length >= 0) return;/' "$1/src/gateway/billing.ts"
  must "$1/src/gateway/billing.ts" 'if (batch.length >= 0) return;'
}
flushfix() {
  python3 - "$1/src/gateway/billing.ts" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
old = """      while (pending.length > 0) {
        const batch = pending.slice(0, maxBatch);
        try {
          await writeBatch(batch);
          pending = pending.slice(batch.length);
        } catch (error) {"""
new = """      let due = pending.length;
      while (due > 0) {
        const batch = pending.slice(0, Math.min(due, maxBatch));
        try {
          await writeBatch(batch);
          pending = pending.slice(batch.length);
          due -= batch.length;
        } catch (error) {"""
assert old in s; s = s.replace(old, new)
old = """          return;
        }
      }
    });
    return flushing;"""
assert old in s
s = s.replace(old, """          return;
        }
      }
      if (pending.length > 0) scheduleFlush();
    });
    return flushing;""")
open(p, 'w').write(s)
PY
}
jsonbatch() {
  python3 - "$1/src/gateway/billing.ts" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
a = s.index("      await tx.insert(usageRecords).values("); b = s.index("      const charged = batch.filter")
s = s[:a] + """      const usageJson = JSON.stringify(
        batch.map(({ facts, costNano, createdAt }) => ({
          user_id: facts.userId, api_key_id: facts.apiKeyId ?? null, agent_id: facts.agentId ?? null,
          request_id: facts.requestId, model: facts.model, stream: facts.stream, prompt_tokens: facts.promptTokens,
          completion_tokens: facts.completionTokens, total_tokens: facts.totalTokens, cost_nano: costNano.toString(),
          status: facts.status, usage_source: facts.usageSource, upstream_status: facts.upstreamStatus ?? null,
          error: facts.error ?? null, duration_ms: facts.durationMs, created_at: createdAt.toISOString(),
        })),
      );
      await tx.execute(sql`
        insert into usage_records (user_id, api_key_id, agent_id, request_id, model, stream, prompt_tokens,
          completion_tokens, total_tokens, cost_nano, status, usage_source, upstream_status, error, duration_ms, created_at)
        select user_id, api_key_id, agent_id, request_id, model, stream, prompt_tokens, completion_tokens, total_tokens,
          cost_nano, status, usage_source, upstream_status, error, duration_ms, created_at
        from json_to_recordset(${usageJson}::json) as r(user_id uuid, api_key_id uuid, agent_id uuid, request_id text,
          model text, stream boolean, prompt_tokens int, completion_tokens int, total_tokens int, cost_nano bigint,
          status text, usage_source text, upstream_status int, error text, duration_ms int, created_at timestamptz)`);
""" + s[b:]
a = s.index("      await tx.insert(ledgerEntries).values("); b = s.index("      const perLease = new Map")
s = s[:a] + """      const ledgerJson = JSON.stringify(
        charged.map((p) => ({
          user_id: p.facts.userId, amount_nano: (-p.costNano).toString(), kind: p.facts.agentId ? 'assistant_usage' : 'usage',
          reference: `request:${p.facts.requestId}`, created_at: p.createdAt.toISOString(),
        })),
      );
      await tx.execute(sql`
        insert into ledger_entries (user_id, amount_nano, kind, reference, created_at)
        select user_id, amount_nano, kind, reference, created_at
        from json_to_recordset(${ledgerJson}::json) as r(user_id uuid, amount_nano bigint, kind text, reference text, created_at timestamptz)`);
""" + s[b:]
open(p, 'w').write(s)
PY
}
bigbatch() {
  sed -i 's/const maxBatch = options.maxBatch ?? 500;/const maxBatch = options.maxBatch ?? 5000;/' "$1/src/gateway/billing.ts"
  must "$1/src/gateway/billing.ts" 'options.maxBatch ?? 5000'
}
noprepare() {
  sed -i 's/^      max: options.maxConnections ?? 10,$/&\n      prepare: false,/' "$1/src/db/client.ts"
  must "$1/src/db/client.ts" 'prepare: false'
}
notokenizer() {
  sed -i "s#^import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';#const countTokens = (text: string, _o?: unknown) => Math.ceil(text.length / 4);#" "$1/src/gateway/tokens.ts"
  must "$1/src/gateway/tokens.ts" 'const countTokens ='
}
nozod() {
  sed -i 's#const parsed = chatRequestSchema.safeParse(json);#const parsed = { success: true, data: json } as any;#' "$1/src/gateway/chat.ts"
  must "$1/src/gateway/chat.ts" 'success: true, data: json'
}
noelysia() {
  sed -i "s#^            : await app.handle(request);#            : request.method === 'POST' \&\& request.url.endsWith('/v1/chat/completions') ? await services.chat.handle(request) : await app.handle(request);#" "$1/src/server.ts"
  must "$1/src/server.ts" 'services.chat.handle(request)'
}
nofilter() { sed -i 's#^      filter: stream && !clientWantsUsage,#      filter: false,#' "$1/src/gateway/chat.ts"; must "$1/src/gateway/chat.ts" 'filter: false,'; }
nometer() { sed -i 's#^          meter.push(chunk.value);#          // meter off#' "$1/src/gateway/chat.ts"; must "$1/src/gateway/chat.ts" '// meter off'; }
notimer() { sed -i 's#^          ctx.restartTimer();#          // timer restart off#' "$1/src/gateway/chat.ts"; must "$1/src/gateway/chat.ts" '// timer restart off'; }
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

directstream() {
  # Bun's direct ReadableStream: the relay writes each chunk without the queue and pull-promise round trip.
  python3 - "$1/src/gateway/chat.ts" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
a = s.index("    const body = new ReadableStream<Uint8Array>({\n      async pull(controller) {")
b = s.index("    return new Response(body, { status: 200, headers: SSE_HEADERS });")
seg = s[a:b]
seg = seg.replace("    const body = new ReadableStream<Uint8Array>({\n      async pull(controller) {", "    const body = new ReadableStream<Uint8Array>({\n      type: 'direct',\n      async pull(controller: any) {")
seg = seg.replace("controller.enqueue(", "controller.write(")
old = """          if (out.byteLength > 0) {
            controller.write(out);
            return;
          }"""
assert old in seg
seg = seg.replace(old, """          if (out.byteLength > 0) {
            controller.write(out);
            await controller.flush();
          }""")
seg = seg.replace("    });\n", "    } as any);\n", 1) if False else seg
seg = seg[: seg.rindex("    });")] + "    } as any);\n\n"
s = s[:a] + seg + s[b:]
open(p, 'w').write(s)
PY
}

[ $# -gt 0 ] || { sed -n '2,20p' "$0"; exit 2; }
for spec in "$@"; do
  name=${spec%%=*}; changes=${spec#*=}
  [ "$name" != "$spec" ] || changes=$name
  mk "$name"
  for change in ${changes//+/ }; do "$change" "$V/$name"; done
  echo "$V/$name: ${changes//+/ + }"
done
