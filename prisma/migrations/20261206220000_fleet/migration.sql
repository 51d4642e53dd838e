-- The fleet: registered clusters, their submitted states, judgements, events, subscriptions, the delivery outbox and waivers.
CREATE TABLE "FleetCluster" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FleetCluster_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "FleetCluster_name_key" ON "FleetCluster"("name");

CREATE TABLE "FleetSnapshot" (
    "id" SERIAL NOT NULL,
    "clusterId" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "state" JSONB NOT NULL,
    "takenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FleetSnapshot_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "FleetSnapshot_clusterId_id_idx" ON "FleetSnapshot"("clusterId", "id");
ALTER TABLE "FleetSnapshot" ADD CONSTRAINT "FleetSnapshot_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "FleetCluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "FleetJudgement" (
    "id" SERIAL NOT NULL,
    "clusterId" INTEGER NOT NULL,
    "snapshotId" INTEGER NOT NULL,
    "kbRevision" INTEGER NOT NULL,
    "asOf" DATE NOT NULL,
    "status" TEXT NOT NULL,
    "summary" JSONB NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "judgedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FleetJudgement_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "FleetJudgement_clusterId_id_idx" ON "FleetJudgement"("clusterId", "id");
ALTER TABLE "FleetJudgement" ADD CONSTRAINT "FleetJudgement_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "FleetCluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "FleetJudgement" ADD CONSTRAINT "FleetJudgement_snapshotId_fkey" FOREIGN KEY ("snapshotId") REFERENCES "FleetSnapshot"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "FleetEvent" (
    "id" SERIAL NOT NULL,
    "clusterId" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "detail" JSONB NOT NULL,
    "kbRevision" INTEGER NOT NULL,
    "asOf" DATE NOT NULL,
    "occurredAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FleetEvent_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "FleetEvent_clusterId_id_idx" ON "FleetEvent"("clusterId", "id");
ALTER TABLE "FleetEvent" ADD CONSTRAINT "FleetEvent_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "FleetCluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "FleetSubscription" (
    "id" SERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT,
    "filters" JSONB NOT NULL DEFAULT '{}',
    "createdBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FleetSubscription_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "FleetDelivery" (
    "id" SERIAL NOT NULL,
    "eventId" INTEGER NOT NULL,
    "subscriptionId" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "lastAttemptAt" TIMESTAMP(3),
    "deliveredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FleetDelivery_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "FleetDelivery_eventId_subscriptionId_key" ON "FleetDelivery"("eventId", "subscriptionId");
CREATE INDEX "FleetDelivery_status_id_idx" ON "FleetDelivery"("status", "id");
ALTER TABLE "FleetDelivery" ADD CONSTRAINT "FleetDelivery_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "FleetEvent"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "FleetDelivery" ADD CONSTRAINT "FleetDelivery_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "FleetSubscription"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "FleetWaiver" (
    "id" SERIAL NOT NULL,
    "code" TEXT NOT NULL,
    "clusterName" TEXT,
    "label" TEXT,
    "reason" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "expiresOn" DATE NOT NULL,
    "createdBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FleetWaiver_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "FleetWaiver_code_idx" ON "FleetWaiver"("code");
