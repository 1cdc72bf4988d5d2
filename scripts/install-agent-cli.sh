#!/usr/bin/env bash
# Installs the pinned agent CLI (Claude Code, the version in main/core/agent/agent-cli.ts) for Linux
# workers into /var/cache/nexus-agent-cli/<version> (or $NEXUS_AGENT_CLI_CACHE/<version>) and prints
# that directory. Idempotent: a complete install is left alone. CI and the tests use exactly this
# directory, through NEXUS_AGENT_CLI_DIR. Needs npm and the npm registry the first time only.
# Usage: bash scripts/install-agent-cli.sh [x64|arm64]
set -euo pipefail
cd "$(dirname "$0")/.."
PIN=main/core/agent/agent-cli.ts
PACKAGE=$(sed -n "s/^export const AGENT_CLI_PACKAGE = '\(.*\)';$/\1/p" "$PIN")
VERSION=$(sed -n "s/^export const AGENT_CLI_VERSION = '\(.*\)';$/\1/p" "$PIN")
[ -n "$PACKAGE" ] && [ -n "$VERSION" ] || { echo "install-agent-cli: cannot read the pin from $PIN" >&2; exit 1; }
case "${1:-$(uname -m)}" in
  x64 | x86_64 | amd64) CPU=x64 ;;
  arm64 | aarch64) CPU=arm64 ;;
  *) echo "install-agent-cli: unsupported CPU ${1:-$(uname -m)}" >&2; exit 1 ;;
esac
ROOT=${NEXUS_AGENT_CLI_CACHE:-/var/cache/nexus-agent-cli}
DIR=$ROOT/$VERSION
BIN=$DIR/node_modules/$PACKAGE-linux-$CPU/claude
if [ -x "$BIN" ] && grep -q "\"version\": \"$VERSION\"" "$DIR/node_modules/$PACKAGE-linux-$CPU/package.json" 2>/dev/null; then
  echo "$DIR"
  exit 0
fi
command -v npm >/dev/null || { echo "install-agent-cli: npm is not installed (it comes with Node.js)" >&2; exit 1; }
SUDO=""
if ! mkdir -p "$ROOT" 2>/dev/null || [ ! -w "$ROOT" ]; then SUDO="sudo"; $SUDO mkdir -p "$ROOT"; fi
TMP=$($SUDO mktemp -d "$ROOT/.install-$VERSION-XXXXXX")
trap '$SUDO rm -rf "$TMP"' EXIT
echo "install-agent-cli: installing $PACKAGE@$VERSION for linux-$CPU into $DIR" >&2
# --ignore-scripts: the postinstall only copies the platform binary over a placeholder, for the host's
# platform; workers mount the platform package's directory itself.
$SUDO npm install --prefix "$TMP" --no-audit --no-fund --no-save --ignore-scripts --loglevel=error \
  --os=linux --cpu="$CPU" --libc=glibc "$PACKAGE@$VERSION" >&2
[ -x "$TMP/node_modules/$PACKAGE-linux-$CPU/claude" ] || { echo "install-agent-cli: the linux-$CPU binary is missing after npm install" >&2; exit 1; }
$SUDO rm -rf "$DIR"
$SUDO mv "$TMP" "$DIR"
$SUDO chmod 755 "$DIR"
trap - EXIT
echo "$DIR"
