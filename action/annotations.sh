# Sourced by action/scan.sh: each finding of the report where people look, since the job log
# said only how many there were and private repositories without code scanning showed them
# nowhere. Called after the scan's stop-commands bracket has ended: these are the scripts'
# own commands, every value from the report escaped by gha_command.
#
# annotate_findings REPORT LEVEL: one LEVEL (error or warning) annotation per finding, at
# most ANNOTATIONS_MAX and a count of the rest, and the step summary's table (findings.py).
# Sets FINDINGS_COUNT (empty when the report cannot be read: then no annotation either).

ANNOTATIONS_MAX=50

annotate_findings() {
  local report="$1" level="$2" fields=() field path line col message shown=0 rest
  FINDINGS_COUNT=""
  while IFS= read -r -d '' field; do fields+=("$field"); done < <(
    "${HYGIENE_PYTHON:-python3}" "$ACTION_DIR/findings.py" "$report" "$ANNOTATIONS_MAX" 2>/dev/null
  )
  case "${fields[0]:-}" in
    "" | *[!0-9]*)
      gha_command warning "aic-token-hygiene: could not read the report for annotations"
      return 0
      ;;
  esac
  FINDINGS_COUNT="${fields[0]}"
  set -- "${fields[@]:1}"
  while [ "$#" -ge 4 ]; do
    path="$1" line="$2" col="$3" message="$4"
    shift 4
    gha_command "$level" "$message" "$path" "$line" "$col"
    shown=$((shown + 1))
  done
  rest=$((FINDINGS_COUNT - shown))
  if [ "$rest" -gt 0 ]; then
    gha_command "$level" "aic-token-hygiene: $rest more finding(s) not annotated (at most $ANNOTATIONS_MAX); all are in the report"
  fi
}
