#!/usr/bin/env bash
# The one install routine for a pinned agent CLI, sourced by install-agent-cli.sh, install-codex-cli.sh and install-acp-cli.sh.
# Each caller names its pin and layout; this reads the pin, leaves a complete install alone, and otherwise
# installs the npm package for linux-<cpu> into a temporary directory beside the target and moves it into place
# (so an interrupted install is never mistaken for a complete one).

# pin_value FILE CONST — the string value of `export const CONST = '...';` in FILE.
pin_value() { sed -n "s/^export const $2 = '\(.*\)';$/\1/p" "$1"; }

# cpu_of [ARG] — x64 or arm64 for ARG (default: this machine), or fail naming the CPU.
cpu_of() {
  case "${1:-$(uname -m)}" in
    x64 | x86_64 | amd64) echo x64 ;;
    arm64 | aarch64) echo arm64 ;;
    *) echo "$NAME: unsupported CPU ${1:-$(uname -m)}" >&2; return 1 ;;
  esac
}

# install_pinned_cli — needs NAME, PACKAGE, VERSION, CPU, DIR (the target), BIN and PKG_JSON (paths inside DIR),
# PKG_VERSION (the version PKG_JSON must carry) and NPM_ARGS (extra npm flags, may be empty). Prints DIR.
install_pinned_cli() {
  if [ -x "$DIR/$BIN" ] && grep -q "\"version\": \"$PKG_VERSION\"" "$DIR/$PKG_JSON" 2>/dev/null; then
    echo "$DIR"
    return 0
  fi
  command -v npm >/dev/null || { echo "$NAME: npm is not installed (it comes with Node.js)" >&2; return 1; }
  local root sudo="" tmp
  root=$(dirname "$DIR")
  if ! mkdir -p "$root" 2>/dev/null || [ ! -w "$root" ]; then sudo="sudo"; $sudo mkdir -p "$root"; fi
  tmp=$($sudo mktemp -d "$root/.install-$(basename "$DIR")-XXXXXX")
  # shellcheck disable=SC2064 # expand now: the trap must remove this install's directory
  trap "$sudo rm -rf '$tmp'" EXIT
  echo "$NAME: installing $PACKAGE@$VERSION for linux-$CPU into $DIR" >&2
  # --ignore-scripts: postinstalls only fetch or copy the host platform's binary; workers mount the platform
  # package's directory itself.
  # shellcheck disable=SC2086 # NPM_ARGS is a list of flags
  $sudo npm install --prefix "$tmp" --no-audit --no-fund --no-save --ignore-scripts --loglevel=error \
    --os=linux --cpu="$CPU" $NPM_ARGS "$PACKAGE@$VERSION" >&2
  [ -x "$tmp/$BIN" ] || { echo "$NAME: the linux-$CPU binary is missing after npm install" >&2; return 1; }
  $sudo rm -rf "$DIR"
  $sudo mv "$tmp" "$DIR"
  $sudo chmod 755 "$DIR"
  trap - EXIT
  echo "$DIR"
}
