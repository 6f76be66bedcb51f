# Parley's container image. Build: `docker build -t parley .` (or `docker compose build`).
# The build steps are scripts/container-build.sh, which CI also runs (with --smoke) in a clean copy
# of the repository, so they cannot rot unnoticed on machines without a Docker engine.

# --- build: production dependencies and the compiled dist/ --------------------------------------
FROM node:24-slim AS build
# better-sqlite3 downloads a prebuilt binary; these compile it where none fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
RUN scripts/container-build.sh

# --- run: Node 24 slim, the built app read-only, data in a volume, a user without root ----------
FROM node:24-slim
ENV NODE_ENV=production \
    PARLEY_HTTP_HOST=0.0.0.0 \
    PARLEY_HTTP_PORT=3000 \
    DATABASE_URL=file:/app/data/parley.db
WORKDIR /app
# COPY keeps the files' times, so dist/ stays as current as the build stage checked.
COPY --from=build /app /app
RUN mkdir -p /app/data && chown node:node /app/data
USER node
# The SQLite database, web-console.secret / .admins and the knowledge index (its cache) live here.
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "scripts/healthcheck.mjs"]
CMD ["node", "--max-semi-space-size=4", "bin/start.mjs"]
