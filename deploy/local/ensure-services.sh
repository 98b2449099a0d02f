#!/usr/bin/env bash
# Installs what is missing and starts what is not running: npm packages,
# ClickHouse, Chromium (the browser pool) and Tesseract from Debian, then Postgres, Redis, NATS (JetStream) and ClickHouse.
# Idempotent: safe to run before every start and every test run.
set -euo pipefail
cd "$(dirname "$0")/../.."

log() { printf '[setup] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  # A package's install script can lose a race with the file system (esbuild's
  # version check has met ETXTBSY on its freshly written binary), so a failed
  # install is retried from scratch before giving up.
  for attempt in 1 2 3; do
    npm ci --no-audit --no-fund --loglevel=error && break
    [ "$attempt" = 3 ] && exit 1
    log "npm ci failed (attempt $attempt), retrying"
    sleep 2
  done
fi

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  log "installing $*"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}
command -v clickhouse-server >/dev/null 2>&1 || apt_install clickhouse-server clickhouse-client
# The document pool reads images with Tesseract (English data comes with the package).
# The browser pool drives Debian's Chromium (never a downloaded browser); TRAWL_CHROMIUM_PATH names another.
[ -x "${TRAWL_CHROMIUM_PATH:-/usr/bin/chromium}" ] || apt_install chromium
command -v tesseract >/dev/null 2>&1 || apt_install tesseract-ocr

# The ports come from the same settings the processes read (docs/configuration.md).
url_port() { local rest="${1#*://}"; rest="${rest#*@}"; rest="${rest%%/*}"; case "$rest" in *:*) echo "${rest##*:}" ;; *) echo "$2" ;; esac; }
PG_PORT=$(url_port "${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/trawl}" 5432)
REDIS_PORT=$(url_port "${REDIS_URL:-redis://127.0.0.1:6379/0}" 6379)
NATS_PORT=$(url_port "${NATS_URL:-nats://127.0.0.1:4222}" 4222)
CLICKHOUSE_PORT=$(url_port "${CLICKHOUSE_URL:-http://127.0.0.1:8123}" 8123)

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_port() {
  for _ in $(seq 1 100); do port_open "$1" && return 0; sleep 0.2; done
  log "$2 did not come up on port $1"; return 1
}

if ! port_open "$PG_PORT"; then
  log "starting PostgreSQL"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
  wait_port "$PG_PORT" PostgreSQL
fi
if ! port_open "$REDIS_PORT"; then
  # Stored results live in Redis: the Redis started here keeps an append-only file so a restart keeps them.
  log "starting Redis (append-only persistence)"
  as_root mkdir -p /var/lib/redis /var/log/redis
  as_root redis-server "$PWD/deploy/redis/redis.conf" --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" \
    --dir /var/lib/redis --logfile /var/log/redis/trawl.log
  wait_port "$REDIS_PORT" Redis
fi
if ! port_open "$NATS_PORT"; then
  log "starting NATS with JetStream"
  as_root mkdir -p /var/lib/nats-server
  as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p "$NATS_PORT" -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  wait_port "$NATS_PORT" NATS
fi
if ! port_open "$CLICKHOUSE_PORT"; then
  log "starting ClickHouse"
  as_root mkdir -p /var/lib/clickhouse /var/log/clickhouse-server /var/run/clickhouse-server
  as_root chown -R clickhouse:clickhouse /var/lib/clickhouse /var/log/clickhouse-server /var/run/clickhouse-server
  as_root su -s /bin/sh clickhouse -c \
    "clickhouse-server --config-file=/etc/clickhouse-server/config.xml --daemon --pid-file=/var/run/clickhouse-server/clickhouse-server.pid"
  wait_port "$CLICKHOUSE_PORT" ClickHouse
fi
