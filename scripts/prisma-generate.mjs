// Runs `prisma generate` on machines that cannot download Prisma's native
// schema engine: generation itself uses bundled WebAssembly, but the CLI insists
// on a schema-engine path, so we point it at an existing file. Migrations are
// applied by src/db/migrator.ts, never by this CLI.
//
// The CLI (`prisma`) is a dev dependency: the client it generates (src/db/generated/, TypeScript) is
// compiled into dist/db/generated/ by `npm run build`, so a production install (`npm ci --omit=dev`,
// the Docker image's runtime stage) has nothing to generate and this postinstall steps aside.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
const cli = path.join(root, "node_modules", "prisma", "build", "index.js");
if (!fs.existsSync(cli)) {
  process.stdout.write(
    "prisma-generate: the prisma CLI is not installed (production dependencies only): nothing to generate, dist/ holds the compiled client\n",
  );
  process.exit(0);
}
const result = spawnSync(process.execPath, [cli, "generate", "--schema", "prisma/schema.prisma"], {
  cwd: root,
  env,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
