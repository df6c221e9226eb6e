#!/usr/bin/env bash
# The action's scan step: build the `hygiene scan` command from the inputs, run it, and
# publish exit-code, findings and report as step outputs. Findings (exit 1) do not fail this
# step, so the SARIF upload still runs; action/verdict.sh decides. Errors (exit 2) fail here.
set -euo pipefail
hygiene="${HYGIENE:-hygiene}"
mode="${INPUT_MODE:-}"
format="${INPUT_FORMAT:-sarif}"
output="${INPUT_OUTPUT:-aic-token-hygiene.sarif}"
out="${GITHUB_OUTPUT:-/dev/null}"

if [ -z "$mode" ]; then
  if [ -n "${INPUT_PATHS:-}" ]; then mode=paths; else mode=all-files; fi
fi

pushed_range() {
  if [ "${EVENT:-}" = "pull_request" ] && [ -n "${PR_BASE:-}" ]; then
    echo "$PR_BASE..$PR_HEAD"
  elif [ -n "${BEFORE:-}" ] && [ "$BEFORE" != "0000000000000000000000000000000000000000" ]; then
    echo "$BEFORE..$AFTER"
  fi  # a new branch or another event: nothing, so the whole history
}

args=(scan --format "$format" --output "$output")
case "$mode" in
  paths)
    [ -n "${INPUT_PATHS:-}" ] || { echo "::error::mode paths needs the paths input"; exit 2; }
    while IFS= read -r path; do
      path="${path#"${path%%[![:space:]]*}"}"; path="${path%"${path##*[![:space:]]}"}"
      if [ -n "$path" ]; then args+=("$path"); fi
    done <<< "$INPUT_PATHS"
    ;;
  staged) args+=(--staged) ;;
  all-files) args+=(--all-files) ;;
  history)
    args+=(--history)
    since="${INPUT_SINCE:-}"
    if [ "$since" = "auto" ]; then since="$(pushed_range)"; fi
    if [ -n "$since" ]; then args+=(--since "$since"); fi
    ;;
  *) echo "::error::unknown mode '$mode' (paths, staged, all-files or history)"; exit 2 ;;
esac
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -a extra <<< "$INPUT_ARGS"
  args+=("${extra[@]}")
fi

echo "hygiene ${args[*]}"
status=0
"$hygiene" "${args[@]}" || status=$?

findings=""
if [ -f "$output" ] && [ "$format" != "text" ]; then
  findings="$("${HYGIENE_PYTHON:-python3}" -c '
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
runs = report.get("runs")
print(sum(len(r.get("results", [])) for r in runs) if runs is not None else len(report["findings"]))
' "$output" 2>/dev/null || true)"
fi
if [ "$format" = "text" ] && [ -f "$output" ]; then cat "$output"; fi
{
  echo "exit-code=$status"
  echo "findings=$findings"
  if [ -f "$output" ]; then echo "report=$output"; else echo "report="; fi
} >> "$out"

if [ "$status" -ge 2 ]; then
  echo "::error::hygiene scan could not complete (exit $status)"
  exit "$status"
fi
