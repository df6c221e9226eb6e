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
# shellcheck source=action/annotations.sh
. "$ACTION_DIR/annotations.sh"

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

# since: auto, as --ref/--since words (one a line): a pull request's head less what its base
# reaches, a push's new head less the previous one. A new branch, or another event: the
# head's whole history (--ref alone); no head: nothing, so every ref's.
auto_range() {
  local base="${PR_BASE:-}" head="${PR_HEAD:-}"
  case "${EVENT:-}" in
    pull_request | pull_request_target) ;;
    *) base="${BEFORE:-}" head="${AFTER:-}" ;;
  esac
  is_revision "$head" || return 0
  echo "--ref=$head"
  if is_revision "$base" && [ -n "${base//0/}" ]; then echo "--since=$base"; fi
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

# The `args` input split with shell quoting (split_args.py: nothing evaluated), so
# `--baseline "my baseline.json"` is one file; what cannot be parsed is refused. Settings
# are the `config` input's: a pull request's scan must not take them from its head.
read_extra_args() {
  local word error
  extra=()
  if [ -n "${INPUT_ARGS:-}" ]; then
    if ! "${HYGIENE_PYTHON:-python3}" "$ACTION_DIR/split_args.py" >"$temp/args" 2>"$temp/args.err"; then
      error="$(head -c 200 -- "$temp/args.err" | tr -d '\r\n')"
      fail "args: not shell words (${error:-unreadable}); nothing was run"
    fi
    while IFS= read -r -d '' word; do extra+=("$word"); done <"$temp/args"
  fi
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
    if [ "$since" = "auto" ]; then
      while IFS= read -r word; do args+=("$word"); done < <(auto_range)
    else
      case "$since" in -*) fail "since: a revision or a range, not an option ($since)" ;; esac
      if [ -n "$since" ]; then args+=(--since "$since"); fi
    fi
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
  level=error
  if [ "${INPUT_FAIL_ON_FINDINGS:-true}" = "false" ]; then level=warning; fi
  annotate_findings "$output" "$level"
  findings="$FINDINGS_COUNT"
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
