-- Start-up merges kb/ into the database instead of overwriting run-time edits:
-- what was imported last (the bundle's hash and each record's value) is the
-- base of a three-way merge, and records changed on both sides are kept as
-- open conflicts until an edit or an import resolves them.

-- AlterTable
ALTER TABLE "KbState" ADD COLUMN "importedBundleHash" TEXT;

-- CreateTable: each record of the kb/ directory as it was last imported.
CREATE TABLE "KbImportBase" (
    "id" SERIAL NOT NULL,
    "entity" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "record" JSONB NOT NULL,

    CONSTRAINT "KbImportBase_pkey" PRIMARY KEY ("id")
);

-- CreateTable: a record that kb/ and a run-time edit changed differently.
CREATE TABLE "KbConflict" (
    "id" SERIAL NOT NULL,
    "entity" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "baseRecord" JSONB,
    "kbRecord" JSONB,
    "databaseRecord" JSONB,
    "detectedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "source" TEXT NOT NULL,

    CONSTRAINT "KbConflict_pkey" PRIMARY KEY ("id")
);

-- CreateTable: the answer of an edit sent with an Idempotency-Key, so a retry gets it again.
CREATE TABLE "IdempotentEdit" (
    "id" SERIAL NOT NULL,
    "actor" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "result" JSONB NOT NULL,
    "auditEntryId" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IdempotentEdit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "KbImportBase_entity_key_key" ON "KbImportBase"("entity", "key");

-- CreateIndex
CREATE UNIQUE INDEX "KbConflict_entity_key_key" ON "KbConflict"("entity", "key");

-- CreateIndex
CREATE UNIQUE INDEX "IdempotentEdit_actor_key_key" ON "IdempotentEdit"("actor", "key");

-- CreateIndex
CREATE INDEX "IdempotentEdit_createdAt_idx" ON "IdempotentEdit"("createdAt");
