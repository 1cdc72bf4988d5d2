#!/usr/bin/env bash
# Installs the pinned Codex CLI (the version in main/core/agents/codex/cli.ts) for Linux workers into
# /var/cache/nexus-agent-cli/codex-<version> (or $NEXUS_AGENT_CLI_CACHE/codex-<version>) and prints that directory.
# Idempotent: a complete install is left alone. The native binary comes as @openai/codex's optional dependency
# @openai/codex-linux-<cpu> (~400 MB). Needs npm and the npm registry the first time only.
# Usage: bash scripts/install-codex-cli.sh [x64|arm64]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pinned-cli.sh
NAME=install-codex-cli
PIN=main/core/agents/codex/cli.ts
PACKAGE=$(pin_value "$PIN" CODEX_CLI_PACKAGE)
VERSION=$(pin_value "$PIN" CODEX_CLI_VERSION)
[ -n "$PACKAGE" ] && [ -n "$VERSION" ] || { echo "$NAME: cannot read the pin from $PIN" >&2; exit 1; }
CPU=$(cpu_of "${1:-}")
[ "$CPU" = x64 ] && TRIPLE=x86_64-unknown-linux-musl || TRIPLE=aarch64-unknown-linux-musl
DIR=${NEXUS_AGENT_CLI_CACHE:-/var/cache/nexus-agent-cli}/codex-$VERSION
PKG_JSON=node_modules/$PACKAGE-linux-$CPU/package.json
BIN=node_modules/$PACKAGE-linux-$CPU/vendor/$TRIPLE/bin/codex
PKG_VERSION=$VERSION-linux-$CPU
NPM_ARGS=
install_pinned_cli
