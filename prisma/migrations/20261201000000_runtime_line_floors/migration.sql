-- AlterTable: per release line floors of a recommendation table (containerd lists 1.7.11+ and 1.6.27+ for Kubernetes 1.29).
ALTER TABLE "RuntimeRequirement" ADD COLUMN "lineMinVersions" TEXT[];

-- Rows stored before this migration list no lines.
UPDATE "RuntimeRequirement" SET "lineMinVersions" = ARRAY[]::TEXT[];
