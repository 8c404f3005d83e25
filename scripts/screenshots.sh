#!/usr/bin/env bash
# Renders the review workbench to PNG screenshots in screenshots/.
# Needs tmux, aha and chromium (Debian: apt-get install tmux aha chromium).
# Usage: scripts/screenshots.sh   (CARGO_TARGET_DIR is honoured)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
out="screenshots"
work="$(mktemp -d)"
trap 'tmux kill-session -t mastor-shots 2>/dev/null || true; tmux kill-session -t mastor-keep 2>/dev/null || true; rm -rf "$work"' EXIT
# A session that outlives the shots, so the tmux server does not exit between them.
tmux new-session -d -s mastor-keep "sleep 900"
mkdir -p "$out"

cargo build --quiet
MASTOR_DEMO_DIR="$work/demo" cargo test --quiet --test it -- --ignored --exact tui_e2e::write_demo_session >/dev/null
bin="$target/debug/mastor"
chrome="$(command -v chromium || command -v chromium-browser)"

# shot NAME THEME KEYS...: start the workbench, press KEYS, capture the pane as PNG.
shot() {
  local name="$1" theme="$2"; shift 2
  tmux kill-session -t mastor-shots 2>/dev/null || true
  tmux new-session -d -x 120 -y 40 -s mastor-shots \
    "env MASTOR_CONFIG=$work/cfg TERM=xterm-256color COLORTERM=truecolor $bin tui $work/demo --theme $theme"
  sleep 1
  for k in "$@"; do tmux send-keys -t mastor-shots "$k"; sleep 0.3; done
  sleep 0.5
  tmux capture-pane -e -p -t mastor-shots > "$work/$name.ans"
  local bg="--black"; [ "$theme" = light ] && bg=""
  aha $bg --title "mastor $name" < "$work/$name.ans" \
    | sed 's|<pre>|<pre style="font-family: DejaVu Sans Mono, monospace; font-size: 14px; line-height: 1.15; margin: 8px">|' \
    > "$work/$name.html"
  "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size=1040,672 --screenshot="$PWD/$out/$name.png" "file://$work/$name.html" >/dev/null 2>&1
  echo "$out/$name.png"
}

shot operations dark
shot oracles dark Enter
shot oracle-whole-file dark Enter Down o
shot hints dark Enter Tab
shot context dark Enter Left Left
shot context-edit dark Enter Left Left e
shot group dark 2 Enter
shot costs dark 3
shot help dark '?'
shot reject-note dark Enter Down r
shot oracles-light light Enter
shot failure-view dark Enter f
shot search dark / PetHandler Enter n n n
shot source-zoom dark Enter z

# The same session with metamorphic tests (and the loop report) for their screen.
rm -rf "$work/demo"
MASTOR_DEMO_DIR="$work/demo" cargo test --quiet --test it -- --ignored --exact tui_metamorphic::write_demo_session >/dev/null
shot metamorphic dark 4 j

# The same session with a mutation analysis: a survivor and what would kill it.
rm -rf "$work/demo"
MASTOR_DEMO_DIR="$work/demo" cargo test --quiet --test it -- --ignored --exact tui_mutants::write_demo_session >/dev/null
shot mutants dark 5
