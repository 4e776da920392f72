# Multi-stage build: compile with dev dependencies, run the compiled build with production ones only.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# the npm workspace (the TypeScript client) must be declared for npm ci
COPY packages/client/package.json ./packages/client/
# On Node 22 SQLite is better-sqlite3 13, whose binary is inside its npm package: no install script
# needs to run (better-sqlite3-node20, Node 20's driver built from source, is installed but not used).
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
COPY scripts ./scripts
# npm run build also writes the client's and the dashboard's API types from the OpenAPI document and
# compiles the client (test/unit/dockerfile.test.ts checks that these COPY lines are enough)
COPY openapi/openapi.json ./openapi/
COPY packages/client/tsconfig.json ./packages/client/
COPY packages/client/src ./packages/client/src
RUN npm run build && npm prune --omit=dev && rm -rf node_modules/better-sqlite3-node20

FROM node:22-bookworm-slim
ENV NODE_ENV=production DATA_DIR=/data PORT=3000 HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--max-semi-space-size=2", "--enable-source-maps", "dist/main.js", "serve"]
