#!/usr/bin/env bash
# Runs every test of mastor on a fresh machine: installs what the tests need, then
# formatting, lints and the whole test suite: unit, integration, fixture-API, export-runner
# and TUI tests, plus the end-to-end tests against a real local model (SmolLM2 served by
# llama.cpp, started here and stopped on exit).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo build --all-targets

# The real local model for the end-to-end tests (first install builds llama.cpp: minutes).
base_url=$(scripts/local-llm.sh start | tail -n 1)
trap 'scripts/local-llm.sh stop >/dev/null 2>&1 || true' EXIT
export MASTOR_E2E_BASE_URL="$base_url"

mkdir -p target
cargo test --lib --bins --tests --no-fail-fast 2>&1 | tee target/test-output.txt
# Benchmarks (benches/) are not run here: `cargo bench` runs them and prints figures.
# End-to-end tests that need the real model are marked #[ignore]; run them explicitly.
cargo test --test e2e_local_model --test e2e_pipeline_local_model --test meta_e2e_model -- --ignored 2>&1 \
  | tee target/test-e2e-output.txt
