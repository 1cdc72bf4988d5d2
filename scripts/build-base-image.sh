#!/usr/bin/env bash
# Builds the offline worker base image: a minimal Debian (debootstrap --variant=minbase from the
# machine's configured Debian mirror) with everything the worker needs preinstalled, imported
# with `docker import`. No registry pull is possible here, so the Dockerfile only adds files on top.
# Cached: does nothing when the tag already exists (the tag carries the package list's hash).
# `--tag` only prints the tag this script builds, without building.
# Nexus uses the newest local nexus-base:* image by itself when node:20-bookworm is not on the engine
# and no base image is configured (main/core/docker/worker-image.ts defaultBaseImage).
set -euo pipefail
PACKAGES="ca-certificates,git,tmux,nodejs,procps,socat"
# Bump REVISION when the way the root filesystem is made changes (the tag must change with it).
REVISION=3
TAG="nexus-base:$(printf '%s' "$PACKAGES" | sha256sum | cut -c1-12)-r$REVISION"
if [ "${1:-}" = "--tag" ]; then echo "$TAG"; exit 0; fi
if docker image inspect "$TAG" >/dev/null 2>&1; then echo "$TAG"; exit 0; fi
MIRROR=$(grep -hoE '^URIs: *http[^ ]+/debian$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 | awk '{print $2}')
MIRROR=${MIRROR:-$(grep -hoE '^deb +http[^ ]+' /etc/apt/sources.list 2>/dev/null | head -1 | awk '{print $2}')}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SUITE=${SUITE:-bookworm}
ROOT=$(mktemp -d /var/tmp/nexus-rootfs.XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
echo "debootstrap $SUITE from $MIRROR" >&2
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOT" "$MIRROR" >&2
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/*
# Documentation, manual pages and translations: 72 of its 324 MB, and with the vfs storage driver every container
# is a whole copy of its image (git and tmux speak English; a repo's own image keeps all of its files).
rm -rf "$ROOT"/usr/share/doc/* "$ROOT"/usr/share/man/* "$ROOT"/usr/share/locale/* "$ROOT"/usr/share/info/*
# mktemp made the root 0700: without this, non-root users in containers cannot reach anything.
chmod 0755 "$ROOT"
tar -C "$ROOT" -c . | docker import -c 'CMD ["/bin/bash"]' - "$TAG" >&2
echo "$TAG"
