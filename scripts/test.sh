#!/usr/bin/env bash
# Runs every test of mastor on a fresh machine: installs what the tests need, then
# formatting, lints and the whole test suite (unit, integration, fixture and e2e tests).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo test --all-targets 2>&1 | tee target/test-output.txt
