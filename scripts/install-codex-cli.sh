#!/usr/bin/env bash
# Installs the pinned Codex CLI (the version in main/core/agent/codex-cli.ts) for Linux workers into
# /var/cache/nexus-agent-cli/codex-<version> (or $NEXUS_AGENT_CLI_CACHE/codex-<version>) and prints that directory.
# Idempotent: a complete install is left alone. The native binary comes as @openai/codex's optional dependency
# @openai/codex-linux-<cpu> (~400 MB). Needs npm and the npm registry the first time only.
# Usage: bash scripts/install-codex-cli.sh [x64|arm64]
set -euo pipefail
cd "$(dirname "$0")/.."
PIN=main/core/agent/codex-cli.ts
PACKAGE=$(sed -n "s/^export const CODEX_CLI_PACKAGE = '\(.*\)';$/\1/p" "$PIN")
VERSION=$(sed -n "s/^export const CODEX_CLI_VERSION = '\(.*\)';$/\1/p" "$PIN")
[ -n "$PACKAGE" ] && [ -n "$VERSION" ] || { echo "install-codex-cli: cannot read the pin from $PIN" >&2; exit 1; }
case "${1:-$(uname -m)}" in
  x64 | x86_64 | amd64) CPU=x64 TRIPLE=x86_64-unknown-linux-musl ;;
  arm64 | aarch64) CPU=arm64 TRIPLE=aarch64-unknown-linux-musl ;;
  *) echo "install-codex-cli: unsupported CPU ${1:-$(uname -m)}" >&2; exit 1 ;;
esac
ROOT=${NEXUS_AGENT_CLI_CACHE:-/var/cache/nexus-agent-cli}
DIR=$ROOT/codex-$VERSION
PKG=node_modules/$PACKAGE-linux-$CPU
BIN=$PKG/vendor/$TRIPLE/bin/codex
if [ -x "$DIR/$BIN" ] && grep -q "\"version\": \"$VERSION-linux-$CPU\"" "$DIR/$PKG/package.json" 2>/dev/null; then
  echo "$DIR"
  exit 0
fi
command -v npm >/dev/null || { echo "install-codex-cli: npm is not installed (it comes with Node.js)" >&2; exit 1; }
SUDO=""
if ! mkdir -p "$ROOT" 2>/dev/null || [ ! -w "$ROOT" ]; then SUDO="sudo"; $SUDO mkdir -p "$ROOT"; fi
TMP=$($SUDO mktemp -d "$ROOT/.install-codex-$VERSION-XXXXXX")
trap '$SUDO rm -rf "$TMP"' EXIT
echo "install-codex-cli: installing $PACKAGE@$VERSION for linux-$CPU into $DIR" >&2
$SUDO npm install --prefix "$TMP" --no-audit --no-fund --no-save --ignore-scripts --loglevel=error \
  --os=linux --cpu="$CPU" "$PACKAGE@$VERSION" >&2
[ -x "$TMP/$BIN" ] || { echo "install-codex-cli: the linux-$CPU binary is missing after npm install" >&2; exit 1; }
$SUDO rm -rf "$DIR"
$SUDO mv "$TMP" "$DIR"
$SUDO chmod 755 "$DIR"
trap - EXIT
echo "$DIR"
