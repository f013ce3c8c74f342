#!/usr/bin/env bash
# A local scale-out deployment on loopback (docs/scale.md): a 3-node NATS JetStream
# cluster, an API node, two collectors and two workers sharing one PostgreSQL database. For
# trying the topology out, not for production (no TLS, no NATS credentials). Ctrl-C stops it all.
#
#   scripts/local-cluster.sh [postgres://user@host:5432/database]
#
# Environment: SIGHTLINE_CLUSTER_DIR (state and logs, default ./cluster-data), NATS_BASE_PORT
# (client ports BASE..BASE+2, cluster ports BASE+100.., default 14222; never the 4222 a machine's
# own NATS server uses), HTTP_BASE_PORT (api BASE, collectors BASE+1 and BASE+2, workers BASE+3
# and BASE+4; default 8080). Run `npm run build` first.
set -euo pipefail
cd "$(dirname "$0")/.."

DATABASE_URL=${1:-${SIGHTLINE_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/sightline_cluster}}
DIR=${SIGHTLINE_CLUSTER_DIR:-./cluster-data}
NATS_BASE=${NATS_BASE_PORT:-14222}
HTTP_BASE=${HTTP_BASE_PORT:-8080}
NATS=$(command -v nats-server || echo /usr/sbin/nats-server)
[ -x "$NATS" ] || { echo "nats-server is not installed (apt-get install nats-server)" >&2; exit 1; }
[ -f dist/cli/run.js ] || { echo "dist/ is missing: run npm run build first" >&2; exit 1; }
mkdir -p "$DIR"

# The database, created when missing (the URL's last path segment, on the same server).
DB_NAME=${DATABASE_URL##*/}; DB_NAME=${DB_NAME%%\?*}
psql "${DATABASE_URL%/*}/postgres" -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'" | grep -q 1 ||
  createdb --maintenance-db="${DATABASE_URL%/*}/postgres" "$DB_NAME"

PIDS=()
stop() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap stop EXIT INT TERM

ROUTES=""
for i in 0 1 2; do ROUTES="$ROUTES${ROUTES:+,}nats://127.0.0.1:$((NATS_BASE + 100 + i))"; done
QUEUE=""
for i in 0 1 2; do
  "$NATS" -a 127.0.0.1 -p $((NATS_BASE + i)) -js -sd "$DIR/nats$i" -n "sightline-n$i" --cluster_name sightline \
    --cluster "nats://127.0.0.1:$((NATS_BASE + 100 + i))" --routes "$ROUTES" >"$DIR/nats$i.log" 2>&1 &
  PIDS+=($!)
  QUEUE="$QUEUE${QUEUE:+,}nats://127.0.0.1:$((NATS_BASE + i))"
done

node_up() { # node_up NAME ROLE PORT
  # Every node names the same public URL (here the first collector's), as behind a load balancer.
  node bin/sightline.js serve --role "$2" --queue "$QUEUE" --database "$DATABASE_URL" \
    --public-url "http://localhost:$((HTTP_BASE + 1))" \
    --data "$DIR/$1" --host 127.0.0.1 --port "$3" >"$DIR/$1.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 120); do curl -fsS "http://127.0.0.1:$3/healthz" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "$1 did not come up; see $DIR/$1.log" >&2; exit 1
}
# The API node first: it migrates the database and creates the first tenant and operator.
node_up api api "$HTTP_BASE"
node_up collector1 collector $((HTTP_BASE + 1))
node_up collector2 collector $((HTTP_BASE + 2))
node_up worker1 worker $((HTTP_BASE + 3))
node_up worker2 worker $((HTTP_BASE + 4))

cat <<INFO
Sightline scale-out on loopback (logs and state in $DIR):
  NATS JetStream   $QUEUE
  API and web UI   http://127.0.0.1:$HTTP_BASE/   (the operator password is in $DIR/api.log on first start)
  collectors       http://127.0.0.1:$((HTTP_BASE + 1))/log_sink  http://127.0.0.1:$((HTTP_BASE + 2))/log_sink
  workers          http://127.0.0.1:$((HTTP_BASE + 3))/readyz    http://127.0.0.1:$((HTTP_BASE + 4))/readyz
  PostgreSQL       $DATABASE_URL
Try: curl -i -H 'Content-Type: application/json' -d '{"message":"hello"}' http://127.0.0.1:$((HTTP_BASE + 1))/log_sink
Ctrl-C stops everything.
INFO
wait
