#!/usr/bin/env bash
# Runs every test of mastor on a fresh machine: installs what the tests need, then
# formatting, lints and the whole test suite: unit, integration, fixture-API, export-runner
# and TUI tests, plus the end-to-end tests against a real local model (SmolLM2 served by
# llama.cpp, started here and stopped on exit).
#
# It stops at the first step that fails and names it (the exit code is that step's).
set -euo pipefail
cd "$(dirname "$0")/.."

step="setup (scripts/setup.sh)"
trap 'code=$?; echo "test.sh: FAILED during: $step (exit $code)" >&2; exit $code' ERR

scripts/setup.sh

step="formatting (cargo fmt --check)"
cargo fmt --check
step="lints (cargo clippy -D warnings)"
cargo clippy --all-targets -- -D warnings
step="build (cargo build --all-targets)"
cargo build --all-targets

# The real local model for the end-to-end tests (first install builds llama.cpp: minutes).
step="local model (scripts/local-llm.sh start)"
base_url=$(scripts/local-llm.sh start | tail -n 1)
trap 'scripts/local-llm.sh stop >/dev/null 2>&1 || true' EXIT
export MASTOR_E2E_BASE_URL="$base_url"

mkdir -p target
step="tests (cargo test; output in target/test-output.txt)"
cargo test --lib --bins --tests --no-fail-fast 2>&1 | tee target/test-output.txt
# Benchmarks (benches/) are not run here: `cargo bench` runs them and prints figures.
# End-to-end tests that need the real model are marked #[ignore]; run them explicitly.
step="real-model end-to-end tests (output in target/test-e2e-output.txt)"
cargo test --test it -- --ignored e2e_local_model:: e2e_pipeline_local_model:: meta_e2e_model:: \
  mutate_e2e_model:: 2>&1 \
  | tee target/test-e2e-output.txt
