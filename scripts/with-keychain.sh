#!/usr/bin/env bash
# Runs a command with a real Secret Service keychain: a private D-Bus session bus and a
# gnome-keyring-daemon whose login keyring is created and unlocked with a throwaway password.
# Usage: scripts/with-keychain.sh <command> [args...]
set -euo pipefail
if [ "${NEXUS_IN_KEYCHAIN:-}" = 1 ]; then exec "$@"; fi
export NEXUS_IN_KEYCHAIN=1
exec dbus-run-session -- bash 2> >(grep -v "Failed to set fd limit" >&2) -c '
  set -euo pipefail
  export XDG_DATA_HOME="${XDG_DATA_HOME:-$(mktemp -d /tmp/nexus-keyring.XXXXXX)}"
  # An empty password makes the daemon prompt for one (and there is no display): use a throwaway one.
  eval "$(printf "nexus-test-keyring" | gnome-keyring-daemon --unlock --components=secrets)" >/dev/null
  export GNOME_KEYRING_CONTROL
  exec "$@"
' nexus-keychain "$@"
