#!/usr/bin/env bash
# npm start: brings the whole system up on this machine and keeps it in the foreground.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/ensure-services.sh
exec node --import tsx deploy/local/stack.ts
