#!/usr/bin/env bash
# Installs what mastor's build and tests need on a fresh Debian machine. Idempotent:
# a second run finds everything in place and returns quickly.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v javac >/dev/null 2>&1 || need_apt+=(openjdk-17-jdk-headless)
command -v tmux >/dev/null 2>&1 || need_apt+=(tmux)
if [ ${#need_apt[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}"
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true
