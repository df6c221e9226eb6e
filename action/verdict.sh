#!/usr/bin/env bash
# The action's last step: fail the job on findings unless fail-on-findings is false.
set -euo pipefail
code="${EXIT_CODE:-}"
case "$code" in
  0) echo "aic-token-hygiene: no findings" ;;
  1)
    if [ "${INPUT_FAIL_ON_FINDINGS:-true}" = "false" ]; then
      echo "::warning::aic-token-hygiene: ${FINDINGS:-some} finding(s); fail-on-findings is false"
    else
      echo "::error::aic-token-hygiene: ${FINDINGS:-some} finding(s) (masked in the report)"
      exit 1
    fi
    ;;
  *) echo "::error::aic-token-hygiene: the scan did not complete (exit '${code}')"; exit 2 ;;
esac
