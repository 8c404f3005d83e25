#!/usr/bin/env bash
# Creates (once) a Python virtual environment with behave, for running mastor's exported
# Gherkin suites, and prints the path of its `behave` executable as the last line.
#
#   scripts/behave-venv.sh            venv at $MASTOR_BEHAVE_VENV, default ~/.cache/mastor/behave-venv
#
# Needs python3 with the venv module and access to PyPI on first use.
set -euo pipefail

VENV="${MASTOR_BEHAVE_VENV:-${HOME}/.cache/mastor/behave-venv}"
BEHAVE_VERSION="${MASTOR_BEHAVE_VERSION:-1.2.6}"

die() {
    echo "behave-venv: $*" >&2
    exit 1
}

command -v python3 >/dev/null || die "python3 not found"
if [[ ! -x "$VENV/bin/behave" ]]; then
    mkdir -p "$(dirname "$VENV")"
    # Another process may be creating it at the same time: serialize on a lock file.
    exec 9>"$VENV.lock"
    flock 9
    if [[ ! -x "$VENV/bin/behave" ]]; then
        python3 -m venv "$VENV" >&2 || die "cannot create a venv at $VENV (is python3-venv installed?)"
        "$VENV/bin/pip" install --quiet --disable-pip-version-check "behave==$BEHAVE_VERSION" >&2 \
            || die "pip could not install behave==$BEHAVE_VERSION"
    fi
fi
echo "$VENV/bin/behave"
