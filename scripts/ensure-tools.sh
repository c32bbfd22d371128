#!/usr/bin/env bash
# Installs what a fresh machine lacks: pnpm (from the npm registry), the workspace's packages, and Chromium for the
# browser tests (Debian package). Safe to run again: it only installs what is missing or out of date.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v pnpm >/dev/null 2>&1; then
  echo "installing pnpm"
  npm install -g pnpm@9.15.9 >/dev/null
fi
if [ ! -d node_modules/.pnpm ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  pnpm install --frozen-lockfile
fi
if [ "${1:-}" = "--with-browser" ] && ! command -v chromium >/dev/null 2>&1; then
  echo "installing Chromium (Debian package) for the browser tests"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
