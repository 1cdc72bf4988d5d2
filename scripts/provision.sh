#!/usr/bin/env bash
# Idempotent provisioning of this Debian machine for running and testing Nexus: the apt packages
# (Docker engine, nats-server, Chromium, a Secret Service keychain, git, tmux, debootstrap) and a
# Docker daemon when none answers. Safe to run again; does nothing that is already done.
set -euo pipefail
PACKAGES=(docker.io nats-server chromium gnome-keyring libsecret-tools dbus dbus-x11 git tmux debootstrap ca-certificates)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=()
for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "provision: installing ${missing[*]}" >&2
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# A Docker daemon: vfs storage, no iptables, no default bridge — what works inside this sandbox.
if ! docker info >/dev/null 2>&1; then
  echo "provision: starting dockerd" >&2
  LOG=${NEXUS_DOCKERD_LOG:-/var/log/nexus-dockerd.log}
  $SUDO bash -c "nohup dockerd --storage-driver=vfs --iptables=false --bridge=none >'$LOG' 2>&1 &"
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "provision: dockerd did not come up, see $LOG" >&2; tail -20 "$LOG" >&2; exit 1; }
fi
bash "$(dirname "$0")/install-agent-cli.sh" >/dev/null || echo "provision: the agent CLI is not installed yet; Nexus installs it when a workspace needs it" >&2
echo "provision: ok (docker $(docker version --format '{{.Server.Version}}'), $(nats-server --version))" >&2
