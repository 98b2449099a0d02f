#!/usr/bin/env bash
# npm run build: compiles every process to JavaScript in dist/ (what npm start and production run).
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc -p tsconfig.build.json
rm -rf dist/control-plane/migrations
cp -r control-plane/migrations dist/control-plane/migrations
