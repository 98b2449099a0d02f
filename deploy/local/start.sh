#!/usr/bin/env bash
# npm start: brings the whole system up on this machine and keeps it in the foreground.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/ensure-services.sh
node --import tsx deploy/local/ports-preflight.ts
echo "[setup] compiling" >&2
bash deploy/local/build.sh
exec node dist/deploy/local/stack.js
