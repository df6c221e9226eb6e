# Shared by the action's steps (sourced): the only ways they write to the job log and to
# $GITHUB_OUTPUT. The runner reads every line of a step's output as a possible workflow
# command (`::error::`, `::add-mask::`, `::stop-commands::`, legacy `##[...]`), so:
# - what the scripts themselves say as a command goes through `gha_command`, its value
#   escaped (% CR LF, and : , in properties) so it stays one command with our meaning;
# - everything else (the scan's output: paths, file contents, error messages) is printed
#   only inside `quoted`, between `::stop-commands::TOKEN` and `::TOKEN::`, GitHub's
#   documented way to print untrusted text. TOKEN is fresh randomness per bracket, never
#   derived from what is printed, so nothing scanned can close the bracket early.

# 128 random bits as hex: the stop-commands token and the output delimiters.
gha_random() {
  od -An -N16 -tx1 /dev/urandom | tr -d ' \n'
}

# A command's message, escaped as the runner unescapes it.
gha_escape_data() {
  local value="$1"
  value="${value//%/%25}"
  value="${value//$'\r'/%0D}"
  value="${value//$'\n'/%0A}"
  printf '%s' "$value"
}

# A command's property value (file=...), escaped as the runner unescapes it.
gha_escape_property() {
  local value
  value="$(gha_escape_data "$1")"
  value="${value//:/%3A}"
  value="${value//,/%2C}"
  printf '%s' "$value"
}

# gha_command NAME MESSAGE [FILE [LINE COL]]: one workflow command written by the scripts
# themselves. LINE and COL are taken only as positive numbers (they are not escaped).
gha_command() {
  local name="$1" message="$2" file="${3:-}" line="${4:-}" col="${5:-}"
  if [ -n "$file" ]; then
    name="$name file=$(gha_escape_property "$file")"
    if is_number "$line" && is_number "$col"; then name="$name,line=$line,col=$col"; fi
  fi
  printf '::%s::%s\n' "$name" "$(gha_escape_data "$message")"
}

is_number() {
  case "$1" in
    "" | *[!0-9]* | 0*) return 1 ;;
  esac
}

# gha_output NAME VALUE: one step output. A value holding CR or LF takes the delimiter form
# with a random delimiter (a fixed one could be forged by the value).
gha_output() {
  local name="$1" value="$2" out="${GITHUB_OUTPUT:-/dev/null}" delimiter
  case "$value" in
    *$'\n'* | *$'\r'*)
      delimiter="aic_token_hygiene_$(gha_random)"
      printf '%s<<%s\n%s\n%s\n' "$name" "$delimiter" "$value" "$delimiter" >>"$out"
      ;;
    *) printf '%s=%s\n' "$name" "$value" >>"$out" ;;
  esac
}

# quoted COMMAND...: run COMMAND with its stdout and stderr (one stream, so the runner sees
# the bracket's ends in order with what is between them) inside a stop-commands bracket;
# returns COMMAND's status. The newline before the closing token ends any unterminated
# last line, which would otherwise swallow the token and leave commands off.
quoted() {
  local token status=0
  token="$(gha_random)"
  if [ "${#token}" -ne 32 ]; then
    gha_command error "aic-token-hygiene: no randomness for the stop-commands token"
    return 2
  fi
  printf '::stop-commands::%s\n' "$token"
  "$@" 2>&1 || status=$?
  printf '\n::%s::\n' "$token"
  return "$status"
}

# is_revision VALUE: whether VALUE is a full commit id (SHA-1 or SHA-256), so it is passed
# to git as a revision and never read as an option.
is_revision() {
  case "$1" in
    *[!0-9a-f]*) return 1 ;;
  esac
  [ "${#1}" -eq 40 ] || [ "${#1}" -eq 64 ]
}
