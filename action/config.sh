# Sourced by action/scan.sh: which scan settings the scan reads. A pull request's head
# must not weaken the scan of its own change (an `exclude = ["*"]` beside a leak), so on
# pull requests the settings come from the base revision, which was reviewed and merged.
#
# config_args MODE TEMP: fills the array CONFIG_ARGS with the `hygiene scan` options for
# MODE (base, head or none; empty: base on pull requests, else head), warns when the scanned
# change edits the settings, and fails (status 2) on an unknown MODE. Sets CONFIG_MODE (the
# mode in effect) and CONFIG_BASE (the base revision, when the checkout holds it).
#
# baseline_args TEMP: in base mode, rewrites the `--baseline FILE` of the array `extra` (the
# args input) to the base revision's FILE: a change adding its own leak's fingerprint to the
# baseline does not hide that leak.

# The revision the change is measured from: the pull request's base, or the commit a push
# replaced. Only a full commit id is taken (never read as an option by git).
base_revision() {
  local candidate=""
  case "${EVENT:-}" in
    pull_request | pull_request_target) candidate="${PR_BASE:-}" ;;
    *) candidate="${BEFORE:-}" ;;
  esac
  if is_revision "$candidate" && [ -n "${candidate//0/}" ]; then echo "$candidate"; fi
}

# have_commit REV: whether the checkout holds REV; a shallow checkout (actions/checkout's
# default fetch-depth: 1) does not hold the base, so it is fetched once, quietly, and never
# waits for a password.
have_commit() {
  local limit=()
  git cat-file -e "$1^{commit}" 2>/dev/null && return 0
  if command -v timeout >/dev/null 2>&1; then limit=(timeout 120); fi
  GIT_TERMINAL_PROMPT=0 ${limit[@]+"${limit[@]}"} git fetch --quiet --no-tags --depth=1 origin "$1" \
    >/dev/null 2>&1 </dev/null || true
  git cat-file -e "$1^{commit}" 2>/dev/null
}

# copy_settings REV DIR: the settings files REV holds at the repository root, into DIR.
copy_settings() {
  local name
  for name in .hygiene.toml pyproject.toml; do
    if [ "$(git cat-file -t "$1:$name" 2>/dev/null)" = blob ]; then
      git cat-file blob "$1:$name" >"$2/$name"
    fi
  done
}

# The settings file hygiene would read in DIR (as hygiene.scan.settings.settings_file does).
settings_in() {
  if [ -f "$1/.hygiene.toml" ]; then
    echo "$1/.hygiene.toml"
  elif [ -f "$1/pyproject.toml" ] && grep -qF '[tool.hygiene' "$1/pyproject.toml"; then
    echo "$1/pyproject.toml"
  fi
}

warn_settings_changed() {
  local base_dir="$1" mode="$2" root names name effect
  root="$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
  case "$mode" in
    base) effect="the scan reads the base revision's settings, not this change's" ;;
    head) effect="the scan uses the changed settings (config: head)" ;;
    none) effect="the scan reads no settings (config: none)" ;;
  esac
  if ! names="$("${HYGIENE_PYTHON:-python3}" "$ACTION_DIR/settings_changed.py" "$base_dir" "$root" 2>/dev/null)"; then
    gha_command warning "aic-token-hygiene: could not compare the scan settings with the base revision's; $effect"
    return 0
  fi
  for name in $names; do
    gha_command warning "aic-token-hygiene: this change edits the scan settings in $name; $effect" "$name"
  done
}

# warn_inline_markers BASE: a change can also hide a leak behind an allowlist marker on the
# leaking line (hygiene.detection.ALLOW_MARKERS). The marker is the scanner's contract, so
# the action cannot take it back; it says so, with the number of added lines holding one.
warn_inline_markers() {
  local count
  count="$(git diff --no-color --no-ext-diff --no-textconv --text -U0 "$1" 2>/dev/null |
    grep -a '^+' | grep -av '^+++ ' |
    grep -acF -e 'pragma: allowlist secret' -e 'hygiene: allow' || true)"
  if [ -n "$count" ] && [ "$count" != 0 ]; then
    gha_command warning "aic-token-hygiene: this change adds $count line(s) holding an inline allowlist marker (pragma: allowlist secret, hygiene: allow): a secret on such a line is not reported"
  fi
}

config_args() {
  local mode="$1" temp="$2" base="" base_dir settings
  base="$(base_revision)"
  if [ -z "$mode" ]; then
    case "${EVENT:-}" in
      pull_request | pull_request_target) mode=base ;;
      *) mode=head ;;
    esac
  fi
  case "$mode" in
    base | head | none) ;;
    *)
      gha_command error "aic-token-hygiene: unknown config '$mode' (base, head or none)"
      return 2
      ;;
  esac
  base_dir="$temp/base"
  mkdir -p "$base_dir"
  if [ -n "$base" ] && have_commit "$base"; then
    copy_settings "$base" "$base_dir"
    warn_settings_changed "$base_dir" "$mode"
    warn_inline_markers "$base"
  else
    base=""
    if [ "$mode" = base ]; then
      gha_command warning "aic-token-hygiene: the base revision is not in the checkout (fetch-depth: 0 brings it); the scan reads no settings"
      mode=none
    fi
  fi
  CONFIG_MODE="$mode" CONFIG_BASE="$base" CONFIG_ARGS=()
  case "$mode" in
    none) CONFIG_ARGS=(--no-config) ;;
    base)
      settings="$(settings_in "$base_dir")"
      if [ -n "$settings" ]; then CONFIG_ARGS=(--config "$settings"); else CONFIG_ARGS=(--no-config); fi
      ;;
  esac
}

# base_copy FILE TEMP: sets BASE_COPY to a copy of FILE as the base revision holds it, or to
# nothing when it holds none (warned); warns when the change edits FILE. Fails for a FILE
# outside the repository.
base_copy() {
  local file="$1" root spec copy
  BASE_COPY=""
  root="$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
  case "$file" in
    "$root"/*) spec="${file#"$root"/}" ;;
    /*) return 1 ;; # outside the repository: not the change's to edit
    *) spec="./$file" ;;
  esac
  copy="$(mktemp "$2/baseline.XXXXXXXX")"
  if [ "$(git cat-file -t "$CONFIG_BASE:$spec" 2>/dev/null)" != blob ]; then
    gha_command warning "aic-token-hygiene: the base revision has no baseline $file; the scan uses none" "$file"
    return 0
  fi
  git cat-file blob "$CONFIG_BASE:$spec" >"$copy"
  if ! cmp -s -- "$copy" "$file"; then
    gha_command warning "aic-token-hygiene: this change edits the baseline $file; the scan reads the base revision's" "$file"
  fi
  BASE_COPY="$copy"
}

baseline_args() {
  local word next="" kept=()
  if [ "$CONFIG_MODE" != base ] || [ -z "$CONFIG_BASE" ]; then return 0; fi
  for word in ${extra[@]+"${extra[@]}"}; do
    if [ "$next" = baseline ]; then
      next=""
      if base_copy "$word" "$1"; then
        if [ -n "$BASE_COPY" ]; then kept+=(--baseline "$BASE_COPY"); fi
      else
        kept+=(--baseline "$word")
      fi
      continue
    fi
    case "$word" in
      --baseline) next=baseline ;;
      --baseline=*)
        if base_copy "${word#--baseline=}" "$1"; then
          if [ -n "$BASE_COPY" ]; then kept+=(--baseline "$BASE_COPY"); fi
        else
          kept+=("$word")
        fi
        ;;
      *) kept+=("$word") ;;
    esac
  done
  if [ "$next" = baseline ]; then kept+=(--baseline); fi # hygiene names the missing value
  extra=(${kept[@]+"${kept[@]}"})
}
