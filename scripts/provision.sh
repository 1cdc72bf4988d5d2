#!/usr/bin/env bash
# Idempotent provisioning of this Debian machine for running and testing Nexus: the apt packages
# (Docker engine, nats-server, Chromium, a Secret Service keychain, git, tmux, debootstrap, systemd's
# tools for the service unit, openssh-server for the remote-engine tests' sshd), the pinned Node (.node-version, from the npm registry, beside the
# machine's own Node; `. scripts/node-env.sh` then picks it), a Docker daemon when none answers, and
# a base for the worker image. Safe to run again; does nothing that is already done.
set -euo pipefail
PACKAGES=(docker.io nats-server chromium gnome-keyring libsecret-tools dbus dbus-x11 git tmux debootstrap ca-certificates systemd openssh-server)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=()
for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "provision: installing ${missing[*]}" >&2
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# A Docker daemon: overlay2 storage where the kernel mounts it (else vfs), no iptables, no default bridge — what works
# inside this sandbox. vfs copies a whole image for every container (6.2 s to create and remove one of the worker
# image on an idle machine, against 0.35 s on overlay2: docs/performance.md); an engine that already answers is left
# as it is, whichever driver it has.
start_dockerd() { # $1: the storage driver
  LOG=${NEXUS_DOCKERD_LOG:-/var/log/nexus-dockerd.log}
  # In a session of its own (setsid): a dockerd started from a shell whose job is later killed as a process group
  # (a tool's command, a CI step) must outlive it; it died with its starter's group twice (December 2026).
  $SUDO setsid bash -c "nohup dockerd --storage-driver=$1 --iptables=false --bridge=none >'$LOG' 2>&1 &" </dev/null
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && return 0
    pgrep -x dockerd >/dev/null || return 1 # it gave up (e.g. "driver not supported")
    sleep 1
  done
  docker info >/dev/null 2>&1
}
if ! docker info >/dev/null 2>&1; then
  echo "provision: starting dockerd" >&2
  if ! { grep -qw overlay /proc/filesystems && start_dockerd overlay2; }; then
    $SUDO pkill -x dockerd 2>/dev/null && sleep 2
    echo "provision: overlay2 storage did not start; dockerd on vfs" >&2
    start_dockerd vfs || { echo "provision: dockerd did not come up, see $LOG" >&2; tail -20 "$LOG" >&2; exit 1; }
  fi
fi
# The pinned Node (the LTS line the project and the worker helpers run on), in /opt/nexus-node/<version>.
NODE_DIR=$(bash "$(dirname "$0")/install-node.sh")
bash "$(dirname "$0")/install-agent-cli.sh" >/dev/null || echo "provision: the agent CLI is not installed yet; Nexus installs it when a workspace needs it" >&2
# A base for the worker image: node:20-bookworm when the engine has it or a registry answers; else
# the offline base built from the Debian mirror (scripts/build-base-image.sh, cached), which
# `nexus serve` then picks by itself (no configuration). NEXUS_PROVISION_PULL=0 skips the pull.
DEFAULT_BASE=node:20-bookworm
OFFLINE_BASE=$(bash "$(dirname "$0")/build-base-image.sh" --tag)
if docker image inspect "$DEFAULT_BASE" >/dev/null 2>&1; then
  BASE=$DEFAULT_BASE
elif docker image inspect "$OFFLINE_BASE" >/dev/null 2>&1; then
  BASE=$OFFLINE_BASE
elif [ "${NEXUS_PROVISION_PULL:-1}" != 0 ] && timeout 300 docker pull -q "$DEFAULT_BASE" >&2; then
  BASE=$DEFAULT_BASE
else
  echo "provision: no registry answered; building the offline base image $OFFLINE_BASE" >&2
  BASE=$(bash "$(dirname "$0")/build-base-image.sh" | tail -1)
fi
echo "provision: ok (docker $(docker version --format '{{.Server.Version}}'), $(nats-server --version), node $("$NODE_DIR/bin/node" --version) in $NODE_DIR, worker base $BASE)" >&2
# The machine's Node is left as it is; a shell picks the pinned one (when its own is older) with:
echo "provision: for this shell: . scripts/node-env.sh   (or PATH=$NODE_DIR/bin:\$PATH)" >&2
