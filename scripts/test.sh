#!/usr/bin/env bash
# The whole test suite on a fresh machine: tools, local services, static checks, then every jest test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh --with-browser
bash scripts/ensure-infra.sh
pnpm run check
# Known advisories of the production dependencies, where the registry answers (docs/dependencies.md).
pnpm advisories
pnpm exec jest --ci "$@"
