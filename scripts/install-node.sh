#!/usr/bin/env bash
# Installs the pinned Node.js (the version in .node-version, the current LTS line) from the npm
# registry's node-linux-<cpu> package, which ships the official binary and its headers, into
# /opt/nexus-node/<version> (or $NEXUS_NODE_ROOT/<version>) and prints that directory. Idempotent: a
# complete install is left alone. Never touches the machine's own Node (/usr/bin/node, nvm, …): the
# project's commands pick this one through scripts/node-env.sh, and the worker image gets its binary
# (docs/workspaces.md, "The helpers' Node"). Needs npm and the npm registry the first time only.
# Usage: bash scripts/install-node.sh [x64|arm64]
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=$(tr -d ' \n' <.node-version)
[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "install-node: cannot read the pin from .node-version" >&2; exit 1; }
case "${1:-$(uname -m)}" in
  x64 | x86_64 | amd64) CPU=x64 ;;
  arm64 | aarch64) CPU=arm64 ;;
  *) echo "install-node: unsupported CPU ${1:-$(uname -m)}" >&2; exit 1 ;;
esac
ROOT=${NEXUS_NODE_ROOT:-/opt/nexus-node}
DIR=$ROOT/$VERSION
if [ -x "$DIR/bin/node" ] && [ -f "$DIR/include/node/node_version.h" ] && [ "$("$DIR/bin/node" --version 2>/dev/null)" = "v$VERSION" ]; then
  echo "$DIR"
  exit 0
fi
command -v npm >/dev/null || { echo "install-node: npm is not installed (it comes with Node.js; apt-get install npm)" >&2; exit 1; }
SUDO=""
if ! mkdir -p "$ROOT" 2>/dev/null || [ ! -w "$ROOT" ]; then SUDO="sudo"; $SUDO mkdir -p "$ROOT"; fi
TMP=$($SUDO mktemp -d "$ROOT/.install-$VERSION-XXXXXX")
trap '$SUDO rm -rf "$TMP"' EXIT
echo "install-node: installing node-linux-$CPU@$VERSION into $DIR" >&2
# npm pack checks the tarball against the registry's integrity hash; the package has no install scripts.
TGZ=$($SUDO npm pack --silent --pack-destination "$TMP" "node-linux-$CPU@$VERSION" | tail -1)
$SUDO tar -xzf "$TMP/$TGZ" -C "$TMP" --strip-components=1 --no-same-owner
$SUDO rm -f "$TMP/$TGZ"
[ "$("$TMP/bin/node" --version)" = "v$VERSION" ] || { echo "install-node: the binary in node-linux-$CPU@$VERSION is not v$VERSION" >&2; exit 1; }
[ -f "$TMP/include/node/node_version.h" ] || { echo "install-node: node-linux-$CPU@$VERSION has no headers" >&2; exit 1; }
$SUDO rm -rf "$DIR"
$SUDO mv "$TMP" "$DIR"
$SUDO chmod 755 "$DIR"
trap - EXIT
echo "$DIR"
