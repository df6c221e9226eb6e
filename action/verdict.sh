#!/usr/bin/env bash
# The action's last step: fail the job on findings unless fail-on-findings is false.
# Its inputs are the scan step's outputs: used in workflow commands as numbers only.
set -euo pipefail
# shellcheck source=action/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"
code="${EXIT_CODE:-}"
findings="${FINDINGS:-}"
case "$findings" in
  "" | *[!0-9]*) findings=some ;;
esac
case "$code" in
  0) echo "aic-token-hygiene: no findings" ;;
  1)
    if [ "${INPUT_FAIL_ON_FINDINGS:-true}" = "false" ]; then
      gha_command warning "aic-token-hygiene: $findings finding(s); fail-on-findings is false"
    else
      gha_command error "aic-token-hygiene: $findings finding(s): see the annotations and the step summary (masked)"
      exit 1
    fi
    ;;
  *)
    case "$code" in *[!0-9]* | "") code="unknown" ;; esac
    gha_command error "aic-token-hygiene: the scan did not complete (exit $code)"
    exit 2
    ;;
esac
