-- CreateEnum
CREATE TYPE "Plane" AS ENUM ('CONTROL', 'DATA', 'CLIENT');

-- CreateEnum
CREATE TYPE "NodeRole" AS ENUM ('CONTROL_PLANE', 'WORKER', 'ALL_NODES', 'CLIENT');

-- CreateEnum
CREATE TYPE "Protocol" AS ENUM ('TCP', 'UDP');

-- CreateEnum
CREATE TYPE "Direction" AS ENUM ('INBOUND', 'OUTBOUND');

-- CreateEnum
CREATE TYPE "SkewReference" AS ENUM ('KUBE_APISERVER', 'KUBE_APISERVER_PEERS', 'KUBELET');

-- CreateEnum
CREATE TYPE "ApiserverBound" AS ENUM ('OLDEST', 'NEWEST');

-- CreateEnum
CREATE TYPE "RuntimeRequirementKind" AS ENUM ('REQUIRES_SHIM', 'MIN_VERSION', 'MATCH_KUBERNETES_MINOR', 'RECOMMENDED_MIN_VERSION', 'UNSUPPORTED', 'SUPPORT_ENDING');

-- CreateEnum
CREATE TYPE "UpgradePhase" AS ENUM ('ANY', 'CONTROL_PLANE_UPGRADE', 'NODE_UPGRADE');

-- CreateTable
CREATE TABLE "Component" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "aliases" TEXT[],
    "plane" "Plane" NOT NULL,
    "category" TEXT NOT NULL,
    "nodeRole" "NodeRole" NOT NULL,
    "processName" TEXT NOT NULL,
    "responsibility" TEXT NOT NULL,
    "talksTo" TEXT NOT NULL,
    "notes" TEXT,
    "sourceUrl" TEXT NOT NULL,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Component_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Port" (
    "id" SERIAL NOT NULL,
    "componentName" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "endPort" INTEGER,
    "protocol" "Protocol" NOT NULL,
    "nodeRole" "NodeRole" NOT NULL,
    "direction" "Direction" NOT NULL,
    "purpose" TEXT NOT NULL,
    "usedBy" TEXT NOT NULL,
    "deprecated" BOOLEAN NOT NULL DEFAULT false,
    "tlsNotes" TEXT,
    "configurableWith" TEXT,
    "notes" TEXT,
    "sourceUrl" TEXT NOT NULL,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Port_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CommunicationLink" (
    "id" SERIAL NOT NULL,
    "fromComponent" TEXT NOT NULL,
    "toComponent" TEXT NOT NULL,
    "protocol" TEXT NOT NULL,
    "port" INTEGER,
    "authentication" TEXT NOT NULL,
    "minTlsVersion" TEXT,
    "notes" TEXT,
    "sourceUrl" TEXT NOT NULL,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CommunicationLink_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PolicyProfile" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "extends" TEXT,
    "description" TEXT NOT NULL,
    "sourceUrl" TEXT NOT NULL,
    "notes" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PolicyProfile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SkewRule" (
    "id" SERIAL NOT NULL,
    "ruleId" TEXT NOT NULL,
    "profileName" TEXT NOT NULL,
    "componentName" TEXT NOT NULL,
    "relativeTo" "SkewReference" NOT NULL,
    "maxNewer" INTEGER NOT NULL,
    "maxOlder" INTEGER NOT NULL,
    "newerMeasuredFrom" "ApiserverBound",
    "olderMeasuredFrom" "ApiserverBound",
    "conditionComponentOlderThan" TEXT,
    "conditionMaxOlder" INTEGER,
    "appliesFrom" TEXT,
    "appliesUntil" TEXT,
    "sourceUrl" TEXT NOT NULL,
    "notes" TEXT,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SkewRule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiRemoval" (
    "id" SERIAL NOT NULL,
    "apiVersion" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "group" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "deprecatedIn" TEXT,
    "removedIn" TEXT NOT NULL,
    "replacement" TEXT,
    "replacementAvailableIn" TEXT,
    "notes" TEXT,
    "sourceUrl" TEXT NOT NULL,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiRemoval_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Release" (
    "id" SERIAL NOT NULL,
    "version" TEXT NOT NULL,
    "releaseDate" DATE NOT NULL,
    "endOfStandardSupport" DATE,
    "endOfLife" DATE,
    "latestPatch" TEXT,
    "latestPatchDate" DATE,
    "etcdVersion" TEXT,
    "etcdSourceUrl" TEXT,
    "sourceUrl" TEXT NOT NULL,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Release_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UpgradeDependency" (
    "id" SERIAL NOT NULL,
    "beforeComponent" TEXT NOT NULL,
    "afterComponent" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "sourceUrl" TEXT NOT NULL,
    "notes" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UpgradeDependency_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RuntimeRequirement" (
    "id" SERIAL NOT NULL,
    "requirementId" TEXT NOT NULL,
    "componentName" TEXT NOT NULL,
    "kubernetesFrom" TEXT NOT NULL,
    "kind" "RuntimeRequirementKind" NOT NULL,
    "minVersion" TEXT,
    "requiresComponent" TEXT,
    "summary" TEXT NOT NULL,
    "sourceUrl" TEXT NOT NULL,
    "notes" TEXT,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RuntimeRequirement_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Recommendation" (
    "id" SERIAL NOT NULL,
    "recommendationId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "components" TEXT[],
    "phase" "UpgradePhase" NOT NULL,
    "appliesFrom" TEXT,
    "appliesUntil" TEXT,
    "text" TEXT NOT NULL,
    "sourceUrl" TEXT NOT NULL,
    "notes" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Recommendation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KbState" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "revision" INTEGER NOT NULL DEFAULT 0,
    "lastImportAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KbState_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KbImport" (
    "id" SERIAL NOT NULL,
    "importedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "source" TEXT NOT NULL,
    "revisionBefore" INTEGER NOT NULL,
    "revisionAfter" INTEGER NOT NULL,
    "created" INTEGER NOT NULL,
    "updated" INTEGER NOT NULL,
    "deleted" INTEGER NOT NULL,
    "changes" JSONB NOT NULL,

    CONSTRAINT "KbImport_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Component_name_key" ON "Component"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Port_componentName_port_protocol_nodeRole_key" ON "Port"("componentName", "port", "protocol", "nodeRole");

-- CreateIndex
CREATE UNIQUE INDEX "CommunicationLink_fromComponent_toComponent_key" ON "CommunicationLink"("fromComponent", "toComponent");

-- CreateIndex
CREATE UNIQUE INDEX "PolicyProfile_name_key" ON "PolicyProfile"("name");

-- CreateIndex
CREATE UNIQUE INDEX "SkewRule_ruleId_key" ON "SkewRule"("ruleId");

-- CreateIndex
CREATE UNIQUE INDEX "ApiRemoval_apiVersion_kind_key" ON "ApiRemoval"("apiVersion", "kind");

-- CreateIndex
CREATE UNIQUE INDEX "Release_version_key" ON "Release"("version");

-- CreateIndex
CREATE UNIQUE INDEX "UpgradeDependency_beforeComponent_afterComponent_key" ON "UpgradeDependency"("beforeComponent", "afterComponent");

-- CreateIndex
CREATE UNIQUE INDEX "RuntimeRequirement_requirementId_key" ON "RuntimeRequirement"("requirementId");

-- CreateIndex
CREATE UNIQUE INDEX "Recommendation_recommendationId_key" ON "Recommendation"("recommendationId");

-- AddForeignKey
ALTER TABLE "Port" ADD CONSTRAINT "Port_componentName_fkey" FOREIGN KEY ("componentName") REFERENCES "Component"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CommunicationLink" ADD CONSTRAINT "CommunicationLink_fromComponent_fkey" FOREIGN KEY ("fromComponent") REFERENCES "Component"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CommunicationLink" ADD CONSTRAINT "CommunicationLink_toComponent_fkey" FOREIGN KEY ("toComponent") REFERENCES "Component"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PolicyProfile" ADD CONSTRAINT "PolicyProfile_extends_fkey" FOREIGN KEY ("extends") REFERENCES "PolicyProfile"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SkewRule" ADD CONSTRAINT "SkewRule_profileName_fkey" FOREIGN KEY ("profileName") REFERENCES "PolicyProfile"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SkewRule" ADD CONSTRAINT "SkewRule_componentName_fkey" FOREIGN KEY ("componentName") REFERENCES "Component"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UpgradeDependency" ADD CONSTRAINT "UpgradeDependency_beforeComponent_fkey" FOREIGN KEY ("beforeComponent") REFERENCES "Component"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UpgradeDependency" ADD CONSTRAINT "UpgradeDependency_afterComponent_fkey" FOREIGN KEY ("afterComponent") REFERENCES "Component"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RuntimeRequirement" ADD CONSTRAINT "RuntimeRequirement_componentName_fkey" FOREIGN KEY ("componentName") REFERENCES "Component"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RuntimeRequirement" ADD CONSTRAINT "RuntimeRequirement_requiresComponent_fkey" FOREIGN KEY ("requiresComponent") REFERENCES "Component"("name") ON DELETE RESTRICT ON UPDATE CASCADE;
