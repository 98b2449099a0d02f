#!/usr/bin/env bash
# npm test: type-checks the whole tree, then runs every test against real services.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/ensure-services.sh
echo "[test] type-checking" >&2
npx tsc --noEmit -p tsconfig.json
if [ "$#" -eq 0 ]; then set -- "test/**/*.test.ts"; fi
exec npx mocha "$@"
