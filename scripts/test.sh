#!/usr/bin/env bash
# The README's test command: installs what the tests need (apt packages, the pinned Node, dockerd, the
# offline worker base image, npm packages), then lint, typecheck, unit/integration tests and Playwright e2e, all
# against the real services, under a real Secret Service keychain.
set -uo pipefail
cd "$(dirname "$0")/.."
set -e
bash scripts/provision.sh
# Debian's Redmine and its template database for the tracker tests (docs/tracker.md): ~60 s once, nothing after.
bash scripts/redmine.sh template >/dev/null
# Everything below runs on the pinned Node (.node-version), whatever Node the machine has.
NEXUS_NODE_PINNED=1 . scripts/node-env.sh
pinned="v$(tr -d ' \n' <.node-version)"
[ "$(node --version)" = "$pinned" ] || { echo "test.sh: node is $(node --version), not the pinned $pinned" >&2; exit 1; }
echo "test.sh: node $(node --version) ($(command -v node)), npm $(npm --version)" >&2
npm ci --no-audit --no-fund
NEXUS_TEST_BASE_IMAGE=$(bash scripts/build-base-image.sh)
export NEXUS_TEST_BASE_IMAGE
NEXUS_AGENT_CLI_DIR=$(bash scripts/install-agent-cli.sh) && export NEXUS_AGENT_CLI_DIR # the pinned real agent CLI
NEXUS_CODEX_CLI_DIR=$(bash scripts/install-codex-cli.sh) && export NEXUS_CODEX_CLI_DIR # the pinned Codex CLI (~400 MB, ~15 s warm)
# The ACP kinds' pinned CLIs (docs/agents.md "ACP kinds"): ~100, ~350, ~150, ~425 MB; seconds each, warm npm cache.
NEXUS_GEMINI_CLI_DIR=$(bash scripts/install-acp-cli.sh gemini) && export NEXUS_GEMINI_CLI_DIR
NEXUS_OPENCODE_CLI_DIR=$(bash scripts/install-acp-cli.sh opencode) && export NEXUS_OPENCODE_CLI_DIR
NEXUS_QWEN_CLI_DIR=$(bash scripts/install-acp-cli.sh qwen) && export NEXUS_QWEN_CLI_DIR
NEXUS_COPILOT_CLI_DIR=$(bash scripts/install-acp-cli.sh copilot) && export NEXUS_COPILOT_CLI_DIR
npm run build
# The worker image (resources/worker on the offline base), built once per content hash.
node --import tsx scripts/build-worker-image.ts
# Lint and typecheck at once: each is one process on one core (~40 and ~70 s of CPU), the machine has two.
npm run lint &
lint_pid=$!
typecheck=0
npm run typecheck || typecheck=$?
wait $lint_pid
[ $typecheck -eq 0 ]
set +e
# Supply chain: high/critical advisories of runtime dependencies, minus audit-allowlist.json (docs/security.md).
node scripts/audit-check.mjs
audit=$?
# 3 = the registry served no advisory data (this machine's mirror answers 405): said loudly, not a failure of
# the change under test; findings (1) fail the run.
if [ $audit -eq 3 ]; then echo "test.sh: supply-chain audit could not run here (no advisory data)" >&2; audit=0; fi
rm -rf test-results && mkdir -p test-results
scripts/with-keychain.sh npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json
unit=$?
# The no-keychain tier (*.nokeychain.test.ts, vitest.nokeychain.config.ts): outside with-keychain.sh and with no
# D-Bus session bus in the environment, the configuration `npm run serve` ships on a server. It runs beside
# Playwright (one worker, about one core busy): it waits on its core and containers far more than it computes
# (~20 s of CPU in its ~70 s); its output is printed when both are done.
env -u DBUS_SESSION_BUS_ADDRESS -u GNOME_KEYRING_CONTROL -u NEXUS_IN_KEYCHAIN \
  npx vitest run --config vitest.nokeychain.config.ts \
  --reporter=default --reporter=json --outputFile.json=test-results/vitest-nokeychain.json \
  >test-results/vitest-nokeychain.log 2>&1 &
nokeychain_pid=$!
# Playwright after vitest, not beside it: run together on 2 cores (tried), timing-sensitive tests timed out under
# the real agent CLIs' load (host/terminal.docker.test.ts, each passing alone).
scripts/with-keychain.sh npx playwright test
e2e=$?
wait $nokeychain_pid
nokeychain=$?
cat test-results/vitest-nokeychain.log
node scripts/summarize-tests.mjs
summary=$?
[ $audit -eq 0 ] && [ $unit -eq 0 ] && [ $nokeychain -eq 0 ] && [ $e2e -eq 0 ] && [ $summary -eq 0 ]
