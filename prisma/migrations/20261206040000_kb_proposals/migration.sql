-- Proposals derived from upstream sources, waiting for a reviewer; the fingerprint files each upstream change once.
CREATE TYPE "ProposalAction" AS ENUM ('create', 'update', 'retire');

CREATE TYPE "ProposalStatus" AS ENUM ('OPEN', 'APPROVED', 'REJECTED');

CREATE TABLE "KbProposal" (
    "id" SERIAL NOT NULL,
    "entity" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "action" "ProposalAction" NOT NULL,
    "record" JSONB,
    "changedFields" TEXT[],
    "baseRevision" INTEGER,
    "problems" JSONB NOT NULL,
    "source" TEXT NOT NULL,
    "sourceRevision" TEXT NOT NULL,
    "derivation" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "status" "ProposalStatus" NOT NULL DEFAULT 'OPEN',
    "reason" TEXT,
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMP(3),
    "appliedRevision" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KbProposal_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "KbProposal_fingerprint_key" ON "KbProposal"("fingerprint");
CREATE INDEX "KbProposal_status_id_idx" ON "KbProposal"("status", "id");
