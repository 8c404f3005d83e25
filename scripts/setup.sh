#!/usr/bin/env bash
# Installs what mastor's build and tests need on a fresh Debian machine. Idempotent:
# a second run finds everything in place and returns quickly.
#
# Export tests: Debian's junit5 and Jackson jars (under /usr/share/java) compile and run the
# exported JUnit 5 classes; newman (npm, installed locally under target/npm so no global
# state is touched) runs the exported Postman collections. Tests find newman through
# $MASTOR_NEWMAN, then target/npm/node_modules/.bin/newman, then PATH.
#
# Framework fixtures (tests/fixtures/shop-spring-run, tests/fixtures/library-jersey; see
# scripts/fixture-api.sh): Debian's Spring 4.3, Jetty 9.4, servlet API and Jersey 1.19 jars,
# each package installed only when its jar is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v javac >/dev/null 2>&1 || need_apt+=(openjdk-17-jdk-headless)
command -v tmux >/dev/null 2>&1 || need_apt+=(tmux)
[ -f /usr/share/java/junit-platform-console-standalone.jar ] || need_apt+=(junit5)
[ -f /usr/share/java/jackson-databind.jar ] || need_apt+=(libjackson2-databind-java)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
# jar under /usr/share/java -> the package that installs it
for pair in \
  spring3-web.servlet.jar:libspring-web-servlet-java \
  spring3-web.jar:libspring-web-java \
  spring3-context.jar:libspring-context-java \
  spring3-beans.jar:libspring-beans-java \
  spring3-core.jar:libspring-core-java \
  jetty9-server.jar:libjetty9-java \
  servlet-api.jar:libservlet-api-java \
  jersey1-server.jar:libjersey1-server-java \
  jersey1-json.jar:libjersey1-json-java \
  jackson-jaxrs.jar:libjackson-json-java \
  jaxb-api.jar:libjaxb-api-java; do
  [ -f "/usr/share/java/${pair%%:*}" ] || need_apt+=("${pair#*:}")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
if [ ! -x target/npm/node_modules/.bin/newman ]; then
  mkdir -p target/npm
  npm install --prefix target/npm --no-audit --no-fund --silent newman >/dev/null
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true
