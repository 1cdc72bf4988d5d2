#!/usr/bin/env bash
# Installs the pinned agent CLI (Claude Code, the version in main/core/agents/claude/cli.ts) for Linux
# workers into /var/cache/nexus-agent-cli/<version> (or $NEXUS_AGENT_CLI_CACHE/<version>) and prints
# that directory. Idempotent: a complete install is left alone. CI and the tests use exactly this
# directory, through NEXUS_AGENT_CLI_DIR. Needs npm and the npm registry the first time only.
# Usage: bash scripts/install-agent-cli.sh [x64|arm64]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pinned-cli.sh
NAME=install-agent-cli
PIN=main/core/agents/claude/cli.ts
PACKAGE=$(pin_value "$PIN" AGENT_CLI_PACKAGE)
VERSION=$(pin_value "$PIN" AGENT_CLI_VERSION)
[ -n "$PACKAGE" ] && [ -n "$VERSION" ] || { echo "$NAME: cannot read the pin from $PIN" >&2; exit 1; }
CPU=$(cpu_of "${1:-}")
DIR=${NEXUS_AGENT_CLI_CACHE:-/var/cache/nexus-agent-cli}/$VERSION
PKG_JSON=node_modules/$PACKAGE-linux-$CPU/package.json
BIN=node_modules/$PACKAGE-linux-$CPU/claude
PKG_VERSION=$VERSION
NPM_ARGS=--libc=glibc
install_pinned_cli
