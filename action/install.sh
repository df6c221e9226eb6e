#!/usr/bin/env bash
# Install the toolkit from the action's own checkout into a private virtual environment
# (runner images mark their system Python as externally managed; a venv always works).
set -euo pipefail
: "${ACTION_PATH:?path of the action checkout}" "${VENV:?where to create the virtual environment}"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$ACTION_PATH"
"$VENV/bin/hygiene" --version
