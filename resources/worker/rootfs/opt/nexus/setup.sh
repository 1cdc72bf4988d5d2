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
# The platform-tools MCP bridge (dist/worker/nexus-mcp.cjs), when it was bundled before the build.
if [ -f /opt/nexus/nexus-mcp.cjs ]; then
  printf '#!/bin/sh\nexec /opt/nexus/node/bin/node /opt/nexus/nexus-mcp.cjs "$@"\n' > /opt/nexus/bin/nexus-mcp
  chmod 0755 /opt/nexus/bin/nexus-mcp
fi
if [ "${INSTALL_AGENT_CLI:-0}" = "1" ]; then
  npm install --global --no-audit --no-fund "${AGENT_CLI_PACKAGE:-@anthropic-ai/claude-code}"
fi
