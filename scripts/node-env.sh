# Sourced (`. scripts/node-env.sh`): makes this shell's `node` and `npm` a supported Node (the LTS line
# in .node-version, 24 or newer). The machine's own Node stays first when it is new enough; when it is
# older or missing, the pinned one scripts/install-node.sh put in /opt/nexus-node/<version> (run by
# scripts/provision.sh) goes first on PATH, and npm builds native modules (better-sqlite3) against
# its headers, with no download. NEXUS_NODE_PINNED=1 always takes the pinned one (CI: scripts/test.sh).
# Changes only this shell's PATH and npm_config_nodedir; nothing on the machine is replaced.
# Where this file is: bash knows; zsh puts it in $0; a POSIX sh sources it from the checkout's root.
if [ -n "${BASH_VERSION:-}" ]; then eval '_nexus_src=${BASH_SOURCE[0]}'; else _nexus_src=$0; fi
case "$_nexus_src" in *node-env.sh) ;; *) _nexus_src=scripts/node-env.sh ;; esac
_nexus_root=$(cd "$(dirname "$_nexus_src")/.." && pwd)
_nexus_version=$(tr -d ' \n' <"$_nexus_root/.node-version")
_nexus_dir=${NEXUS_NODE_ROOT:-/opt/nexus-node}/$_nexus_version
_nexus_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "${NEXUS_NODE_PINNED:-0}" = 1 ] || [ "$_nexus_major" -lt "${_nexus_version%%.*}" ]; then
  if [ -x "$_nexus_dir/bin/node" ]; then
    case ":$PATH:" in *":$_nexus_dir/bin:"*) ;; *) PATH="$_nexus_dir/bin:$PATH" ;; esac
    export PATH
    # The machine's npm config may point nodedir at another Node's headers (e.g. /usr for Debian's);
    # better-sqlite3 is compiled against these headers (its prebuilt download fails at once here and it
    # builds from source; npm 11 warns on every command about an unknown build-from-source setting).
    export npm_config_nodedir="$_nexus_dir"
  else
    echo "node-env: Node $(node --version 2>/dev/null || echo '(none)') is older than ${_nexus_version%%.*}; run bash scripts/provision.sh (or scripts/install-node.sh) first" >&2
  fi
fi
unset _nexus_src _nexus_root _nexus_version _nexus_dir _nexus_major
