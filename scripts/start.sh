#!/usr/bin/env bash
# Starts the whole stack in this terminal: tools, local services, migrations, then every process with prefixed logs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh
bash scripts/ensure-infra.sh
pnpm run migrate
exec pnpm exec tsx scripts/stack.ts
