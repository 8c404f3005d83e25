#!/usr/bin/env bash
# Builds, starts and stops a fixture API, used by the end-to-end tests as a live API to run
# oracles against. FIXTURE is one of
#   petstore  tests/fixtures/petstore-jdk, JDK HTTP server, JDK only (the default)
#   spring    tests/fixtures/shop-spring-run, Spring MVC 4.3 on embedded Jetty 9.4
#   jaxrs     tests/fixtures/library-jersey, Jersey 1.19 on the JDK HTTP server
# (spring and jaxrs need the Debian jars scripts/setup.sh installs).
#
#   scripts/fixture-api.sh build [FIXTURE]          compile into $FIXTURE_API_CLASSES
#   scripts/fixture-api.sh start [FIXTURE] [PORT]   build, start on 127.0.0.1 (PORT, else env
#                                         PORT; 0 or none: a free port), wait until it answers,
#                                         print the base URL as the last line of stdout
#   scripts/fixture-api.sh stop [FIXTURE]           stop the server started by `start`
#
# Environment: FIXTURE_API_CLASSES (default target/fixture-classes[-FIXTURE]),
# FIXTURE_API_STATE (pid and log directory, default target/fixture-api[-FIXTURE]; use one per
# concurrent server), PETSTORE_BUG_STALE_STATUS=1 (passed through: enables the petstore
# fixture's stale-status bug).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"

die() {
    echo "fixture-api: $*" >&2
    exit 1
}

ACTION="${1:-}"
FIXTURE=petstore
if [[ $# -ge 2 && ! "$2" =~ ^[0-9]+$ ]]; then
    FIXTURE="$2"
    shift
fi
case "$FIXTURE" in
    petstore) SUFFIX="" ; PROJECT="$ROOT/tests/fixtures/petstore-jdk" ;;
    spring) SUFFIX="-spring" ; PROJECT="$ROOT/tests/fixtures/shop-spring-run" ;;
    jaxrs) SUFFIX="-jaxrs" ; PROJECT="$ROOT/tests/fixtures/library-jersey" ;;
    *) die "unknown fixture '$FIXTURE' (petstore, spring or jaxrs)" ;;
esac
SRC="$PROJECT/src/main/java"
CLASSES="${FIXTURE_API_CLASSES:-$ROOT/target/fixture-classes$SUFFIX}"
STATE="${FIXTURE_API_STATE:-$ROOT/target/fixture-api$SUFFIX}"
PID_FILE="$STATE/server.pid"
LOG_FILE="$STATE/server.log"

build() {
    command -v javac >/dev/null || die "javac not found (install a JDK 17+)"
    mkdir -p "$CLASSES"
    # Up to date when no source is newer than the stamp: a reset that restarts the server
    # (check --reset) then costs a JVM start, not a compile.
    local stamp="$CLASSES/.built"
    if [[ -f "$stamp" ]] && [[ -z "$(find "$PROJECT" \( -name '*.java' -o -name build.sh \) -newer "$stamp" -print -quit)" ]]; then
        return 0
    fi
    if [[ "$FIXTURE" == petstore ]]; then
        find "$SRC" -name '*.java' -print0 | xargs -0 javac -encoding UTF-8 -d "$CLASSES"
    else
        bash "$PROJECT/build.sh" "$PROJECT" "$CLASSES"
    fi
    touch "$stamp"
}

# The server's command line: the fixture's own run.sh (which execs java) for the
# framework fixtures, so the pid written below is the JVM's in every case.
launch_cmd() {
    if [[ "$FIXTURE" == petstore ]]; then
        LAUNCH=(java -cp "$CLASSES" petstore.Main "$1")
    else
        LAUNCH=(bash "$PROJECT/run.sh" "$PROJECT" "$1" "$CLASSES")
    fi
}

running_pid() {
    [[ -f "$PID_FILE" ]] || return 1
    local pid
    pid="$(cat "$PID_FILE")"
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

answers() {
    # Any HTTP answer counts (the APIs reply 404 to "/").
    if command -v curl >/dev/null; then
        curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$1/"
    else
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
    fi
}

start() {
    local port="${1:-0}"
    [[ "$port" =~ ^[0-9]+$ ]] || die "port must be a number, got '$port'"
    if pid="$(running_pid)"; then
        die "already running (pid $pid); run '$0 stop $FIXTURE' first"
    fi
    build
    mkdir -p "$STATE"
    : >"$LOG_FILE"
    launch_cmd "$port"
    nohup "${LAUNCH[@]}" </dev/null >"$LOG_FILE" 2>&1 &
    echo $! >"$PID_FILE"
    local pid actual=""
    pid="$(cat "$PID_FILE")"
    for _ in $(seq 1 150); do
        kill -0 "$pid" 2>/dev/null || { cat "$LOG_FILE" >&2; rm -f "$PID_FILE"; die "server exited during start"; }
        if [[ -z "$actual" ]]; then
            actual="$(sed -n 's/^listening on \([0-9][0-9]*\)$/\1/p' "$LOG_FILE" | head -n1)"
        fi
        if [[ -n "$actual" ]] && answers "$actual"; then
            echo "fixture-api: pid $pid, log $LOG_FILE" >&2
            echo "http://127.0.0.1:$actual"
            return 0
        fi
        sleep 0.2
    done
    kill "$pid" 2>/dev/null || true
    rm -f "$PID_FILE"
    die "server did not answer within 30 s (log: $LOG_FILE)"
}

stop() {
    local pid
    if ! pid="$(running_pid)"; then
        rm -f "$PID_FILE"
        echo "fixture-api: not running"
        return 0
    fi
    kill "$pid"
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    rm -f "$PID_FILE"
    echo "fixture-api: stopped pid $pid"
}

case "$ACTION" in
    build) build ;;
    start) start "${2:-${PORT:-0}}" ;;
    stop) stop ;;
    *) die "usage: $0 build [FIXTURE] | start [FIXTURE] [PORT] | stop [FIXTURE] (FIXTURE: petstore, spring, jaxrs)" ;;
esac
