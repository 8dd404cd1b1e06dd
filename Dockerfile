# The app image: one instance of `npm run serve` (API + Socket.IO + built client on one port),
# running the bundled server (scripts/build-server.mjs) with production dependencies only.
# docker-compose.yml runs two of these behind a proxy, on PostgreSQL and Redis.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
# patches/: fixes to dependencies that patch-package applies after every install (see patches/README.md).
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    CLIENT_DIR=/app/dist/client
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
# The bundle holds server/ and shared/; npm packages come from node_modules, dev tools stay out.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY drizzle ./drizzle
COPY scripts/start.mjs scripts/build-server.mjs scripts/run-admin.mjs ./scripts/
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself is PID 1's child (compose sets `init: true`), so SIGTERM reaches main.ts's graceful shutdown.
# `npm run serve`: scripts/start.mjs sets the server's runtime flags, then runs the bundle.
CMD ["node", "scripts/start.mjs", "--no-build"]
