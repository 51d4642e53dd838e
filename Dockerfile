# Multi-stage image: the build stage installs every dependency, generates the Prisma client
# (postinstall) and compiles src/ to dist/ (npm run build; the client, TypeScript under
# src/db/generated/, is compiled into dist/db/generated/ with the rest). The runtime stage carries
# production dependencies only (no TypeScript, tsx or Prisma CLI) and the compiled dist/, and runs
# `node dist/server.js` as the unprivileged "node" user.
#
# Node.js 24 LTS ("Krypton", security fixes until 2028-04-30; README "Node.js versions"): Node 20,
# which the image ran before, reached its end of life on 2026-04-30. Both stages use the same Node
# major, so what the build stage installs and compiles is what runs.
#
# An operator runs the tools of src/ops/ compiled, in the image as it is (each reads DATABASE_URL):
#   docker run --rm -e DATABASE_URL=... IMAGE node dist/ops/db-migrate.js        apply migrations
#   docker run --rm -e DATABASE_URL=... IMAGE node dist/ops/kb-import.js [--prefer-kb]
#   docker run --rm -e DATABASE_URL=... IMAGE node dist/ops/token.js create --role admin --name NAME
#   docker run --rm IMAGE node dist/ops/kb-check.js                               validate kb/
# (kubectl exec DEPLOYMENT -- node dist/ops/token.js list, in a pod.)
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci
COPY . .
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=4000
# glibc gives every thread its own malloc arena by default; V8's helper threads then keep
# tens of MB each that are never handed back. Two arenas are plenty on a 1-2 CPU pod.
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci runs the postinstall (scripts/prisma-generate.mjs), which finds no Prisma CLI and steps aside.
COPY scripts/prisma-generate.mjs ./scripts/
COPY prisma ./prisma
# --legacy-peer-deps: npm ci --omit=dev alone still installs a dev dependency that a production one
# names as an optional peer (npm/cli#7772): @prisma/client names prisma (the CLI, with its own
# tree) and typescript, so both would ship. With it npm installs no peer that "dependencies" does not
# name; the one required peer left out, graphql-yoga (of @graphql-yoga/render-graphiql), is never
# loaded, the playground page being rendered by render-graphiql alone (the replay below probes it).
# test/deployment-files.test.ts computes this install from package-lock.json and keeps it free of them.
RUN npm ci --omit=dev --legacy-peer-deps && npm cache clean --force
COPY --from=build /app/dist ./dist
# What the server reads at run time besides dist/ and node_modules/: the knowledge base it
# imports, the GraphQL SDL (dist/graphql/server.js reads ../../schema.graphql, as deep as
# src/graphql/server.ts: tsconfig.build.json's rootDir is src), and prisma/migrations (copied
# above; dist/db/migrator.js reads ../../prisma/migrations). scripts/docker-stage.ts replays this
# stage and probes each (test/docker-stage.test.ts).
COPY kb ./kb
COPY schema.graphql ./
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
  CMD node -e "fetch('http://127.0.0.1:4000/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# The heap is capped at half the pod's memory limit (deploy/kubernetes/deployment.yaml: 512Mi);
# with the cap V8 also collects sooner, so an instance idles at about 140 MB instead of 250.
# Large requests are admitted a few at a time (LARGE_REQUESTS_IN_FLIGHT) so they fit under it.
# The garbage collector works on the main thread alone (--single-threaded-gc): the pod has one CPU
# (limits.cpu "1"), and V8's helper threads for parallel and concurrent collection only took that CPU
# from the main thread, with the switching on top (measured side by side with edits under 32 pipelines
# of validate reads on one pinned CPU: the reads' p99 99-136 -> 36-50 ms, the edits' p99 98-111 ->
# 70-79 ms; /healthz p99 during large scans 80 -> 29 ms). It costs memory: about 10 MB at rest, up to
# 40 MB at the peak of large scans.
# npm run bench starts the server with these same settings (bench/docker-runtime.ts).
CMD ["node", "--max-old-space-size=256", "--max-semi-space-size=8", "--single-threaded-gc", "dist/server.js"]
