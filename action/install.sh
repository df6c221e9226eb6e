#!/usr/bin/env bash
# Install the toolkit from the action's own checkout into a private virtual environment
# (runner images mark their system Python as externally managed; a venv always works).
# The job may hold `security-events: write`: every dependency comes from
# action/requirements.txt, pinned and checked against its hashes (pip refuses anything
# else), and the package itself is built from the checkout without resolving anything.
set -euo pipefail
: "${ACTION_PATH:?path of the action checkout}" "${VENV:?where to create the virtual environment}"
python3 -m venv "$VENV"
pip=("$VENV/bin/python" -m pip --disable-pip-version-check --quiet)
"${pip[@]}" install --require-hashes --only-binary=:all: -r "$ACTION_PATH/action/requirements.txt"
"${pip[@]}" install --no-deps --no-build-isolation --no-index "$ACTION_PATH"
"$VENV/bin/hygiene" --version
