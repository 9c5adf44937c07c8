#!/usr/bin/env bash
# Builds the benchmarks jar and runs the codec benchmarks (JSON path extraction vs Jackson streaming and tree,
# murmur2 vs Kafka's Utils.murmur2, RowBinary encoding) with JMH's GC profiler, then prints the comparison.
# Short iterations for a 2-core machine: the whole run takes about 3-4 minutes. The table reports the JMH mean and
# the fastest iteration; ratios use the fastest iteration, the figure least disturbed by other processes.
#
#   scripts/bench-codecs.sh                 # build and run everything
#   SKIP_BUILD=1 scripts/bench-codecs.sh    # reuse bench/target/benchmarks.jar
#   JMH_ARGS="-wi 5 -i 10" scripts/bench-codecs.sh   # longer runs
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if [ -z "${SKIP_BUILD:-}" ]; then
  mvn -B -q -pl bench -am package -DskipTests
fi
jar="$root/bench/target/benchmarks.jar"
out="$root/bench/target/bench-codecs"
mkdir -p "$out"

# shellcheck source=lib/jvm-flags.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/jvm-flags.sh"
flags=$SLUICE_JVM_FLAGS
common="-f 1 -wi 4 -w 1s -i 10 -r 1s -prof gc ${JMH_ARGS:-}"

# JMH allows one run per machine (/tmp/jmh.lock); wait for another project's run to finish rather than compete
jmh() {
  local attempt status
  for attempt in $(seq 1 60); do
    status=0
    # shellcheck disable=SC2086
    java $flags -jar "$jar" "$@" 2>&1 | tee "$out/last.log" || status=$?
    if ! grep -q "Unable to acquire the JMH lock" "$out/last.log"; then
      return "$status"
    fi
    echo "== another JMH run holds the lock; waiting (attempt $attempt)"
    sleep 10
  done
  return 1
}

echo "== codec benchmarks: $(nproc) cores, $(java -version 2>&1 | head -1), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
jmh 'io.sluice.bench.codecs.(Extraction|Murmur2|RowBinary)Benchmark' $common \
  -jvmArgsAppend "$flags" -rf json -rff "$out/default.json"
# shellcheck disable=SC2086
jmh 'io.sluice.bench.codecs.ExtractionBenchmark.sluiceScan' $common \
  -jvmArgsAppend "$flags -Dagrona.disable.bounds.checks=true" -rf json -rff "$out/no-bounds-checks.json"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# a cross-check that tolerates a busy machine: Sluice and Jackson streaming alternate batch by batch in one JVM
# shellcheck disable=SC2086
java $flags -cp "$jar" io.sluice.bench.codecs.PairedComparison > "$out/paired.txt"
# shellcheck disable=SC2086
java $flags -Dagrona.disable.bounds.checks=true -cp "$jar" io.sluice.bench.codecs.PairedComparison \
  >> "$out/paired.txt"

# shellcheck disable=SC2086
java $flags -cp "$jar" io.sluice.bench.codecs.CodecsBenchReport "=$out/default.json" \
  "no-bounds-checks=$out/no-bounds-checks.json"
cat "$out/paired.txt"
