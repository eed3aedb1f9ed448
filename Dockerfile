# syntax=docker/dockerfile:1
#
# glacier-collector image. Two stages: `build` bundles the TypeScript (esbuild) and builds the
# native better-sqlite3 addon with a toolchain; the runtime stage gets only the results and runs as
# the unprivileged `node` user (uid 1000), under tini. The image uses a newer Node LTS (22) than the CI minimum
# (20.19.0); both are supported. It runs with a read-only root filesystem when /data and /tmp are
# writable mounts (deploy/kubernetes/).

# ---- build ------------------------------------------------------------------------------------
FROM node:22-bookworm-slim AS build

# better-sqlite3 downloads a prebuilt binary when one matches the platform and otherwise compiles
# its addon with node-gyp, which needs python3, make and a C++ compiler.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# `npm ci` must run install scripts (better-sqlite3 builds or fetches its addon in one; npm itself
# ignores package.json's `allowScripts`, which lists the dependencies that need them), and it also
# runs the package's own `prepare` script, which is `npm run build`: so the sources and tsconfig
# files have to be here before it.
COPY package.json package-lock.json ./
COPY scripts/build.mjs scripts/build-info.mjs ./scripts/
COPY src ./src
COPY jobs ./jobs
# The commit `glacier-collector --version` shows (no .git in the image): --build-arg GIT_COMMIT=….
ARG GIT_COMMIT=""
RUN npm ci

# Explicit, so the image does not depend on `prepare` staying what it is (cheap: already built).
RUN npm run build

# Keep only production dependencies for the runtime stage.
RUN npm prune --omit=dev

# ---- runtime ----------------------------------------------------------------------------------
FROM node:22-bookworm-slim

# tini as PID 1 (Debian's package): it forwards every signal to node and reaps orphaned processes.
# Node itself as PID 1 gets no signal it has no handler for: a SIGTERM during start-up (migrations,
# waiting for the database) would be ignored until the orchestrator's SIGKILL, and an orphan (from
# a `docker exec` or `kubectl exec` session) would stay a zombie.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*

# No DATABASE_PATH: the default `./data/glacier.db` is already on the volume (/app/data points to
# /data, below), and setting it here would make every `-e DATABASE_URL=postgres://…` a config error
# (the two select different stores).
ENV NODE_ENV=production \
    GLACIER_CONFIG=/config/glacier-collector.yaml

WORKDIR /app

COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Migrations are applied at start-up and by `migrate`; they are looked up next to package.json, in
# drizzle/sqlite/ or drizzle/postgres/ by the store in use.
COPY drizzle ./drizzle
COPY package.json ./
COPY spec ./spec
COPY glacier-collector.example.yaml ./

# /data holds the SQLite database (with its -wal and -shm files) and the exports, and the exports'
# downloads in progress (`.part` files beside their target); /config the mounted config file.
# /app/data points to /data, so relative paths (the database default `./data/glacier.db`, the
# exports default `./data/exports`, the demo's `./data/demo.db`) land on the volume instead of the
# read-only application directory. Nothing else is written but SQLite's temporary files, in /tmp.
RUN mkdir -p /data /config \
  && chown node:node /data \
  && ln -s /data /app/data

# Numeric, so that Kubernetes' runAsNonRoot can check it: uid and gid 1000 are the image's `node`.
USER 1000:1000

VOLUME /data

# /metrics, /healthz and /readyz (METRICS_PORT), served by `start`.
EXPOSE 9464

# Liveness: the process answers. (Readiness, /readyz, also needs Redis and the database: an
# orchestrator should not restart the collector because Redis is down; it reconnects by itself.)
# Plain HTTP, or HTTPS when METRICS_WEB_CONFIG sets tls_server_config (the certificate names the
# service, not 127.0.0.1, so this loopback probe of /healthz does not verify it).
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const u=s=>s+'://127.0.0.1:'+(process.env.METRICS_PORT||9464)+'/healthz';fetch(u('http')).catch(()=>{process.env.NODE_TLS_REJECT_UNAUTHORIZED='0';return fetch(u('https'))}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# `start` stops on SIGTERM: active jobs get service.shutdownGrace (30 s) to finish, and the process
# exits within that plus 10 s. tini passes it on; before `start` handles signals (during start-up)
# node's default action ends the process at once.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/src/cli.js"]
# The service. Any other command works too, e.g. `run rewards`, `config check`, `migrate`, `status`.
CMD ["start"]
