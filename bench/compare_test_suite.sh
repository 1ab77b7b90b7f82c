#!/usr/bin/env bash
# Wall time of the README's test command (./scripts/test) in the developer loop — a change
# to lanes-ir, which every crate and test binary depends on — for two revisions, side by
# side in one run: each in its own clone and target directory, warmed by one full run,
# then `touch crates/lanes-ir/src/lib.rs; ./scripts/test` alternating between them.
#
#   bench/compare_test_suite.sh BASE_REV NEW_REV [ROUNDS]
#
# Prints each run and writes bench/results/test_suite_time.json. Takes about
# (2 + 2 * ROUNDS) test-suite runs; run it on a quiet machine.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:?base revision}" new="${2:?new revision}" rounds="${3:-2}"
work="$(mktemp -d /tmp/lanes-suite-XXXX)"
declare -A times
for rev in "$base" "$new"; do
  git clone -q "$repo" "$work/$rev" && git -C "$work/$rev" checkout -q "$rev"
  (cd "$work/$rev" && CARGO_TARGET_DIR="$work/$rev-target" ./scripts/test > "$work/$rev-warm.log" 2>&1)
done
for round in $(seq "$rounds"); do
  for rev in "$base" "$new"; do
    cd "$work/$rev"
    touch crates/lanes-ir/src/lib.rs
    start=$(date +%s.%N)
    CARGO_TARGET_DIR="$work/$rev-target" ./scripts/test > "$work/$rev-$round.log" 2>&1
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    echo "$rev round $round: $secs s"
    times[$rev]="${times[$rev]:+${times[$rev]}, }$secs"
  done
done
cat > "$repo/bench/results/test_suite_time.json" <<JSON
{
  "machine": "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores",
  "command": "touch crates/lanes-ir/src/lib.rs; ./scripts/test (warm target)",
  "seconds": { "$base": [${times[$base]}], "$new": [${times[$new]}] }
}
JSON
echo "wrote bench/results/test_suite_time.json"
