# syntax=docker/dockerfile:1

# patchwright GitHub App. Build: docker build -t patchwright .
# Run:   docker run --env-file .env -p 3000:3000 -v patchwright-cache:/var/cache/patchwright \
#          --security-opt seccomp=unconfined --security-opt systempaths=unconfined \
#          --stop-timeout 75 patchwright
# Workers on Redis (REDIS_URL set): the same image with `node build/cli.js worker`.
# On SIGTERM the App and workers take no new jobs, give running ones
# PATCHWRIGHT_SHUTDOWN_GRACE_SECONDS (60) to finish, pause the rest back into
# the queue, and exit: the stop timeout must be longer than that grace period
# (Docker's default is 10 s).
# Node 24: the current LTS (Node 20 reached its end of life in April 2026).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are here, and no
# dependency needs its install script (tree-sitter-bash is used as wasm).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# bun, for bun projects' dependency bumps: corepack does not manage it, and
# /app is hidden in every sandbox, so the binary npm installed (the
# devDependency package-lock.json pins, in its platform package since scripts
# did not run) goes to /usr/local/bin, where a sandboxed install finds it.
RUN set -- node_modules/@oven/bun-linux-*/bin/bun \
 && if [ "$#" -ne 1 ] || [ ! -x "$1" ]; then echo "expected one bun binary, found: $*" >&2; exit 1; fi \
 && install -D -m 0755 "$1" /opt/bun/bun
# The shell policy loads tree-sitter-bash as wasm; its C sources and native
# prebuilds (about 18 MB) are never loaded.
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/tree-sitter-bash/src node_modules/tree-sitter-bash/prebuilds

FROM ${NODE_IMAGE} AS runtime
# git: the job clones, commits and pushes. bubblewrap: every command from the
# repository or the agent runs in its sandbox (run the container with
# --security-opt seccomp=unconfined --security-opt systempaths=unconfined, see
# the README's security model). tini: forwards signals, which node as PID 1
# does not.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates tini bubblewrap \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    LOG_FORMAT=json \
    HOST=0.0.0.0 \
    PORT=3000 \
    PATCHWRIGHT_CACHE_DIR=/var/cache/patchwright

# Mirrors, per-job worktrees and (without Redis) the job store live here,
# writable by the app user only. Mount a named volume here: without it a
# restart loses the jobs that were waiting.
RUN mkdir -p "$PATCHWRIGHT_CACHE_DIR" && chown node:node "$PATCHWRIGHT_CACHE_DIR"

WORKDIR /app
# Owned by root and read-only for the app user: the running app never rewrites its own code.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /opt/bun/bun /usr/local/bin/bun
RUN bun --version
# Probot reads app.yml from the working directory.
COPY app.yml ./app.yml

USER node
EXPOSE 3000

# Probot answers GET /ping with PONG; node's fetch keeps curl out of the image.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/ping`, { signal: AbortSignal.timeout(4000) }).then(async (r) => process.exit(r.ok && (await r.text()) === 'PONG' ? 0 : 1), () => process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--"]
# What `npm start` runs, without npm in between (npm does not pass SIGTERM on reliably):
# the start-up checks (one line naming the setting when one is wrong), then Probot.
CMD ["node", "build/app/start.js"]
