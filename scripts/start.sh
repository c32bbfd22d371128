#!/usr/bin/env bash
# Starts the whole stack in this terminal: tools, local services, migrations, then every process with prefixed logs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh
bash scripts/ensure-infra.sh
# Every service defaults to production (safe by default); `npm start` is the local sandbox unless told otherwise.
export APP_ENV="${APP_ENV:-sandbox}"
# Every bad or missing variable of every process at once, and every port already taken, before anything (migrations
# included) uses one.
node --import tsx scripts/stack.ts --check-config --check-ports >/dev/null
pnpm run migrate
# Node itself runs the launcher, with tsx as a loader: tsx's command line would forward Ctrl-C and kill the launcher
# 60 ms later, before it has stopped the services and said so.
exec node --import tsx scripts/stack.ts
