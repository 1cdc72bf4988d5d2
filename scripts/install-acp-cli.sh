#!/usr/bin/env bash
# Installs the pinned CLI of one ACP agent kind (gemini, opencode, qwen, copilot: the pin is in
# main/core/agents/<kind>/cli.ts) for Linux workers into /var/cache/nexus-agent-cli/<kind>-<version>
# (or $NEXUS_AGENT_CLI_CACHE/<kind>-<version>) and prints that directory. Idempotent: a complete install is left
# alone. The pin file names the package (<KIND>_CLI_PACKAGE, <KIND>_CLI_VERSION) and where its entry point lands
# (<KIND>_CLI_ENTRY_PACKAGE, `{cpu}` standing for x64/arm64, and <KIND>_CLI_ENTRY inside it); the entry package's
# package.json must carry the pinned version. Needs npm and the npm registry the first time only.
# Usage: bash scripts/install-acp-cli.sh <kind> [x64|arm64]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pinned-cli.sh
NAME=install-acp-cli
KIND=${1:-}
[[ "$KIND" =~ ^[a-z][a-z0-9-]*$ ]] || { echo "usage: $0 <kind> [x64|arm64]" >&2; exit 2; }
PIN=main/core/agents/$KIND/cli.ts
[ -f "$PIN" ] || { echo "$NAME: no pin for kind $KIND ($PIN)" >&2; exit 2; }
K=$(echo "$KIND" | tr 'a-z-' 'A-Z_')
PACKAGE=$(pin_value "$PIN" "${K}_CLI_PACKAGE")
VERSION=$(pin_value "$PIN" "${K}_CLI_VERSION")
ENTRY_PACKAGE=$(pin_value "$PIN" "${K}_CLI_ENTRY_PACKAGE")
ENTRY=$(pin_value "$PIN" "${K}_CLI_ENTRY")
[ -n "$PACKAGE" ] && [ -n "$VERSION" ] && [ -n "$ENTRY_PACKAGE" ] && [ -n "$ENTRY" ] ||
  { echo "$NAME: cannot read the pin from $PIN" >&2; exit 1; }
CPU=$(cpu_of "${2:-}")
ENTRY_PACKAGE=${ENTRY_PACKAGE//\{cpu\}/$CPU}
DIR=${NEXUS_AGENT_CLI_CACHE:-/var/cache/nexus-agent-cli}/$KIND-$VERSION
PKG_JSON=node_modules/$ENTRY_PACKAGE/package.json
BIN=node_modules/$ENTRY_PACKAGE/$ENTRY
PKG_VERSION=$VERSION
# The workers' base is Debian (glibc): no musl builds of native parts.
NPM_ARGS=--libc=glibc
install_pinned_cli
# Copilot CLI is one binary that unpacks 235 MB into ~/.cache/copilot at its first run: unpacked once here, into its
# package's <COPILOT_PKG_CACHE> (mounted read-only; the kind points COPILOT_PKG_CACHE_HOME there). Its own marker,
# written last, says the unpack is complete. Another CPU's binary cannot run here: its workers unpack at first run.
if [ "$KIND" = copilot ] && [ "$CPU" = "$(cpu_of)" ]; then
  CACHE=$DIR/node_modules/$ENTRY_PACKAGE/$(pin_value "$PIN" COPILOT_PKG_CACHE)
  if [ ! -f "$CACHE/pkg/linux-$CPU/$VERSION/.extraction-complete" ]; then
    sudo=""; [ -w "$DIR" ] || sudo=sudo
    $sudo env -i PATH="$PATH" HOME=/nonexistent COPILOT_PKG_CACHE_HOME="$CACHE" COPILOT_SEA_EXTRACT_ONLY=1 \
      "$DIR/$BIN" >&2
    [ -f "$CACHE/pkg/linux-$CPU/$VERSION/.extraction-complete" ] ||
      { echo "$NAME: Copilot CLI did not unpack" >&2; exit 1; }
    $sudo chmod -R a+rX "$CACHE"
  fi
fi
