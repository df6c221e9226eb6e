#!/usr/bin/env bash
# The action's scan step: build the `hygiene scan` command from the inputs, run it, and
# publish exit-code, findings and report as step outputs. Findings (exit 1) do not fail this
# step, so the SARIF upload still runs; action/verdict.sh decides. Errors (exit 2) fail here.
#
# What the scan prints (paths and lines of the scanned repository) is hostile text: it
# reaches the log only inside a stop-commands bracket (lib.sh). Paths are data: they follow
# `--`, and one starting with `-` is given as `./-...`.
set -euo pipefail
ACTION_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=action/lib.sh
. "$ACTION_DIR/lib.sh"
# shellcheck source=action/config.sh
. "$ACTION_DIR/config.sh"

hygiene="${HYGIENE:-hygiene}"
mode="${INPUT_MODE:-}"
format="${INPUT_FORMAT:-sarif}"
output="${INPUT_OUTPUT:-aic-token-hygiene.sarif}"
temp="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/aic-token-hygiene.XXXXXXXX")"
trap 'rm -rf -- "$temp"' EXIT

fail() {
  gha_command error "aic-token-hygiene: $1"
  gha_output exit-code 2
  exit 2
}

if [ -z "$mode" ]; then
  if [ -n "${INPUT_PATHS:-}" ]; then mode=paths; else mode=all-files; fi
fi

pushed_range() {
  local base="${PR_BASE:-}" head="${PR_HEAD:-}"
  case "${EVENT:-}" in
    pull_request | pull_request_target) ;;
    *) base="${BEFORE:-}" head="${AFTER:-}" ;;
  esac
  # a new branch or another event: nothing, so the whole history
  if is_revision "$base" && [ -n "${base//0/}" ] && is_revision "$head"; then
    echo "$base..$head"
  fi
}

# One `paths` line: the line itself when such a file exists, else trimmed of the blanks a
# YAML block leaves; one starting with `-` is a file, not an option nor standard input.
add_path() {
  local path="$1"
  if [ ! -e "$path" ] && [ ! -L "$path" ]; then
    path="${path#"${path%%[![:space:]]*}"}"
    path="${path%"${path##*[![:space:]]}"}"
  fi
  case "$path" in
    "") ;;
    -*) paths+=("./$path") ;;
    *) paths+=("$path") ;;
  esac
}

# The `args` input, every line, split on blanks. Settings are the `config` input's: a
# pull request's scan must not take them from its head.
read_extra_args() {
  local word
  extra=()
  if [ -n "${INPUT_ARGS:-}" ]; then read -r -d '' -a extra <<<"$INPUT_ARGS" || true; fi
  for word in ${extra[@]+"${extra[@]}"}; do
    case "$word" in
      --config | --config=* | --no-config) fail "args: use the config input (base, head or none), not $word" ;;
    esac
  done
}

args=(scan --format "$format" --output "$output")
paths=()
case "$mode" in
  paths)
    [ -n "${INPUT_PATHS:-}" ] || fail "mode paths needs the paths input"
    while IFS= read -r line || [ -n "$line" ]; do add_path "$line"; done <<<"$INPUT_PATHS"
    [ "${#paths[@]}" -gt 0 ] || fail "mode paths needs the paths input"
    ;;
  staged) args+=(--staged) ;;
  all-files) args+=(--all-files) ;;
  history)
    args+=(--history)
    since="${INPUT_SINCE:-}"
    if [ "$since" = "auto" ]; then since="$(pushed_range)"; fi
    case "$since" in -*) fail "since: a revision or a range, not an option ($since)" ;; esac
    if [ -n "$since" ]; then args+=(--since "$since"); fi
    ;;
  *) fail "unknown mode '$mode' (paths, staged, all-files or history)" ;;
esac
read_extra_args
if ! config_args "${INPUT_CONFIG:-}" "$temp"; then
  gha_output exit-code 2
  exit 2
fi
baseline_args "$temp"
args+=(${CONFIG_ARGS[@]+"${CONFIG_ARGS[@]}"} ${extra[@]+"${extra[@]}"} -- ${paths[@]+"${paths[@]}"})

# A report left at the output path (committed by the change itself) must never be taken
# for this scan's, nor uploaded, when the scan fails before writing its own.
if [ -f "$output" ] || [ -L "$output" ]; then rm -f -- "$output"; fi

scan_and_show() {
  local status=0
  printf 'hygiene'
  printf ' %q' "${args[@]}"
  printf '\n'
  "$hygiene" "${args[@]}" </dev/null || status=$?
  if [ "$format" = "text" ] && [ -f "$output" ]; then cat -- "$output"; fi
  return "$status"
}
status=0
quoted scan_and_show || status=$?

findings=""
if [ "$status" -lt 2 ] && [ -f "$output" ] && [ "$format" != "text" ]; then
  findings="$("${HYGIENE_PYTHON:-python3}" -c '
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
runs = report.get("runs")
print(sum(len(r.get("results", [])) for r in runs) if runs is not None else len(report["findings"]))
' "$output" 2>/dev/null || true)"
fi
report=""
if [ "$status" -lt 2 ] && [ -f "$output" ]; then report="$output"; fi
gha_output exit-code "$status"
gha_output findings "$findings"
gha_output report "$report"

if [ "$status" -ge 2 ]; then
  gha_command error "aic-token-hygiene: hygiene scan could not complete (exit $status)"
  exit "$status"
fi
