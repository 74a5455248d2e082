#!/usr/bin/env bash
# `npm run bench:all`: every bench of docs/benchmarks.md (and the team workspace's store bench) one after the other,
# each figure beside the machine's load before and after it, into bench-results/<UTC time>/<bench>.log. Run it on an
# idle machine after the last merge: these are the figures the benchmarks page quotes as "final code, idle".
# BENCH_ALL_ONLY="first-screen overview" runs a subset. Prints nothing it did not measure; asserts nothing.
set -u
cd "$(dirname "$0")/.."
out="bench-results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
only=" ${BENCH_ALL_ONLY:-} "
run() {
  local name="$1"; shift
  if [ "$only" != "  " ] && [[ "$only" != *" $name "* ]]; then return; fi
  echo "== $name: $* (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/summary.txt"
  local t0=$SECONDS
  env "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "   exit $rc after $((SECONDS - t0)) s (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/summary.txt"
}
npm run build > "$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }
run first-screen npx tsx bench/first-screen.ts
run overview-render BENCH_ONLY=render npx tsx bench/overview.ts
run overview-queries BENCH_ONLY=queries npx tsx bench/overview.ts
run batch BENCH_ROWS=1000,10000 npx tsx bench/batch.ts
run batch-ui npx tsx bench/batch-ui.ts
run engine npx tsx bench/engine.ts
run journal BENCH_SIZES=1000000 npx tsx bench/journal.ts
run reconcile npx tsx bench/reconcile.ts
run storage BENCH_SEARCH_ROWS=0 BENCH_ROUNDS=5 npx tsx bench/storage.ts
run batch-stores npx tsx bench/batch-stores.ts
run batch-stores-pinned BENCH_PIN=1 npx tsx bench/batch-stores.ts
run team-senders npx tsx bench/team-senders.ts
run storage-overview BENCH_OVERVIEW_ROWS=1000000 npx tsx bench/storage-overview.ts
run storage-search BENCH_ROUNDS=1 BENCH_SEARCH_ROWS=1000000 npx tsx bench/storage.ts
echo "logs: $out"
