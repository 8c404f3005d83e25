#!/usr/bin/env bash
# The main job on the bundled example: runs the whole MASTOR pipeline (source analysis,
# source contexts, oracle generation, challenger review, normalization) on the bundled
# JDK pet store fixture with a real local model, then prints the summary. No account or
# key needed. With a hosted model, run the same `mastor run` with provider flags, e.g.
#   MASTOR_API_KEY=... mastor run tests/fixtures/petstore-jdk --provider deepseek
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
cargo build --release --bin mastor
base_url=$(scripts/local-llm.sh start | tail -n 1)
out="${MASTOR_DEMO_OUT:-target/demo-session}"
rm -rf "$out"
# The tiny local model is slow on two cores: the demo covers three operations. Drop the
# --op flags to run every operation.
./target/release/mastor run tests/fixtures/users-inflector --out "$out" \
  --provider llamacpp --base-url "$base_url" --model smollm2 --timeout 600 --max-tokens 1024 \
  --op 'GET /users/{userId}' --op 'POST /users' --op 'GET /status'
echo
echo "Review it:  ./target/release/mastor tui $out"
echo "Run oracles against the bundled live pet store API: scripts/fixture-api.sh start; mastor check SUITE --base-url URL"
