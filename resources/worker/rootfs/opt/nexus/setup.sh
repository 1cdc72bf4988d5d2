#!/bin/sh
# Runs once at image build time, as root. No network unless INSTALL_AGENT_CLI=1.
set -eu
# The worker user is uid 1000 with its home in /home/nexus (node images already have uid 1000).
if ! getent passwd 1000 >/dev/null; then
  useradd --uid 1000 --user-group --no-create-home --home-dir /home/nexus --shell /bin/bash nexus
fi
mkdir -p /home/nexus /workspace /run/nexus
chown 1000:1000 /home/nexus /workspace /run/nexus
chmod 0700 /run/nexus
chmod 0755 /opt/nexus/bin/*
# The pinned Node every Nexus helper runs on (dist/worker/node, from .node-version): the base image's own
# `node` (Debian's 18 in the offline base) is left to the project and never used by Nexus.
if ! /opt/nexus/node/bin/node --version >/dev/null 2>&1; then
  echo "setup: /opt/nexus/node/bin/node is missing or does not run: run bash scripts/install-node.sh, then npm run build" >&2
  exit 1
fi
# The session hooks SessionStart and StopFailure are a bash script (main/core/sessions/hooks/hook-command.ts).
if ! command -v bash >/dev/null 2>&1; then
  echo "setup: the base image has no bash, which the session hooks need" >&2
  exit 1
fi
# The platform-tools MCP bridge (dist/worker/nexus-mcp.cjs), when it was bundled before the build. It
# starts from a V8 startup snapshot of the bundle, built here by the Node that runs it (a snapshot is
# that binary's only): its modules are evaluated once, here, not at every session's start (about half
# of its start's CPU, docs/performance.md); it must start (an empty environment: it says what is
# missing). Without one (the build refused) it starts from the bundle.
if [ -f /opt/nexus/nexus-mcp.cjs ]; then
  if (cd /opt/nexus && /opt/nexus/node/bin/node --snapshot-blob nexus-mcp.blob --build-snapshot nexus-mcp.cjs) 2>/tmp/snapshot.log &&
    env -i /opt/nexus/node/bin/node --snapshot-blob /opt/nexus/nexus-mcp.blob </dev/null 2>&1 | grep -q 'nexus-mcp: missing'; then
    chmod 0644 /opt/nexus/nexus-mcp.blob
    printf '#!/bin/sh\nexec /opt/nexus/node/bin/node --snapshot-blob /opt/nexus/nexus-mcp.blob -- "$@"\n' > /opt/nexus/bin/nexus-mcp
  else
    echo "setup: no startup snapshot of nexus-mcp (it starts from its bundle): $(tail -c 300 /tmp/snapshot.log)" >&2
    rm -f /opt/nexus/nexus-mcp.blob
    printf '#!/bin/sh\nexec /opt/nexus/node/bin/node /opt/nexus/nexus-mcp.cjs "$@"\n' > /opt/nexus/bin/nexus-mcp
  fi
  rm -f /tmp/snapshot.log
  chmod 0755 /opt/nexus/bin/nexus-mcp
fi
if [ "${INSTALL_AGENT_CLI:-0}" = "1" ]; then
  npm install --global --no-audit --no-fund "${AGENT_CLI_PACKAGE:-@anthropic-ai/claude-code}"
fi
