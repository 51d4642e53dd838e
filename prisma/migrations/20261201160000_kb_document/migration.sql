-- Records of kinds of knowledge registered without a table of their own, one row per record as JSON.
CREATE TABLE "KbDocument" (
    "id" SERIAL NOT NULL,
    "entity" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "record" JSONB NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KbDocument_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "KbDocument_entity_key_key" ON "KbDocument"("entity", "key");
CREATE INDEX "KbDocument_entity_id_idx" ON "KbDocument"("entity", "id");
