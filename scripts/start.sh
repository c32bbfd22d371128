#!/usr/bin/env bash
# Starts the whole stack in this terminal: tools, local services, migrations, then every process with prefixed logs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh
bash scripts/ensure-infra.sh
# Every service defaults to production (safe by default); `npm start` is the local sandbox unless told otherwise.
export APP_ENV="${APP_ENV:-sandbox}"
# Every bad or missing variable of every process at once, before anything (migrations included) uses one.
pnpm exec tsx scripts/stack.ts --check-config >/dev/null
pnpm run migrate
exec pnpm exec tsx scripts/stack.ts
