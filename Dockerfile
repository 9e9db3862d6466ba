# bridge as a container: `docker build -t bridge .`, then e.g.
#   docker run --rm -e PGPASS bridge copy 'postgres://app:${PGPASS}@db/app?table=t' 'mariadb://…/app?columns=auto&auto_create_table=true'
# Optional packages (cloud checkpoint stores, SQL Server, zstd/lz4) are added at build time:
#   docker build --build-arg EXTRAS="@aws-sdk/client-s3 tedious" -t bridge .
# The bases are arguments, for a machine that makes its own (scripts/build-image.sh: debootstrap and
# Node from the npm registry, built with podman): `--build-arg BUILD_IMAGE=… --build-arg RUN_IMAGE=…`.
ARG BUILD_IMAGE=node:20-bookworm
ARG RUN_IMAGE=node:20-bookworm-slim
FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Dev dependencies build the package; the image gets none of them. Lifecycle scripts wait for the sources.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json README.md ./
COPY bin bin
COPY src src
COPY completions completions
COPY docs docs
COPY scripts/bundle.js scripts/
RUN npm pack --pack-destination /tmp
ARG EXTRAS=""
WORKDIR /opt/bridge
RUN printf '{"name":"bridge-image","private":true}\n' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/bridge-*.tgz $EXTRAS \
 && npm cache clean --force

# Same Debian release as the build stage, so the native modules built there load here.
FROM ${RUN_IMAGE}
ENV NODE_ENV=production PATH=/opt/bridge/node_modules/.bin:$PATH
COPY --from=build /opt/bridge /opt/bridge
# The image's unprivileged user; a SQLite file or checkpoint file goes in a volume it can write.
USER node
WORKDIR /home/node
ENTRYPOINT ["bridge"]
CMD ["--help"]
