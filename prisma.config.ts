// Prisma CLI configuration. The CLI is only used for `prisma generate` here:
// migrations are applied by src/db/migrator.ts (see prisma/schema.prisma).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/kubecompat" },
});
