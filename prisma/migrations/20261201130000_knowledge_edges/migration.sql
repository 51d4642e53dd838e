-- Knowledge that says where it ends: API removals say whether they were served by default, runtime
-- release lines carry their own end of life, node facts (cgroup v1) get their own kind, and each kind
-- of knowledge records the newest Kubernetes minor it covers and the source it was read from.

-- AlterTable
ALTER TABLE "ApiRemoval" ADD COLUMN "servedByDefault" BOOLEAN;

-- CreateTable
CREATE TABLE "RuntimeRelease" (
    "id" SERIAL NOT NULL,
    "component" TEXT NOT NULL,
    "line" TEXT NOT NULL,
    "lts" BOOLEAN NOT NULL,
    "releaseDate" DATE,
    "endOfActiveSupport" DATE,
    "endOfLife" DATE,
    "endOfLifeMonth" TEXT,
    "tentative" BOOLEAN NOT NULL DEFAULT false,
    "extendedSupportScope" TEXT,
    "sourceUrl" TEXT NOT NULL,
    "notes" TEXT,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RuntimeRelease_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HostRequirement" (
    "id" SERIAL NOT NULL,
    "requirementId" TEXT NOT NULL,
    "component" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "kubernetesFrom" TEXT,
    "componentLineFrom" TEXT,
    "status" TEXT NOT NULL,
    "overrideConfigField" TEXT,
    "overrideValue" TEXT,
    "removalNotBefore" TEXT,
    "removalTarget" TEXT,
    "summary" TEXT NOT NULL,
    "sourceUrl" TEXT NOT NULL,
    "notes" TEXT,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "HostRequirement_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KnowledgeCoverage" (
    "id" SERIAL NOT NULL,
    "knowledge" TEXT NOT NULL,
    "throughMinor" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "sourceRevision" TEXT,
    "sourceDate" DATE,
    "sourceUrl" TEXT NOT NULL,
    "notes" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KnowledgeCoverage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "RuntimeRelease_component_line_key" ON "RuntimeRelease"("component", "line");

-- CreateIndex
CREATE UNIQUE INDEX "HostRequirement_requirementId_key" ON "HostRequirement"("requirementId");

-- CreateIndex
CREATE UNIQUE INDEX "KnowledgeCoverage_knowledge_source_key" ON "KnowledgeCoverage"("knowledge", "source");
