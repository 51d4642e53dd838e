-- A release line's upgrade path (etcd: from the previous minor only, and from which patch of it), with its source.
ALTER TABLE "RuntimeRelease" ADD COLUMN "upgradeFromLine" TEXT;
ALTER TABLE "RuntimeRelease" ADD COLUMN "upgradeFromMinVersion" TEXT;
ALTER TABLE "RuntimeRelease" ADD COLUMN "upgradeSourceUrl" TEXT;
