-- CreateTable
CREATE TABLE "FlagChange" (
    "id" SERIAL NOT NULL,
    "changeId" TEXT NOT NULL,
    "componentName" TEXT NOT NULL,
    "flag" TEXT,
    "configField" TEXT,
    "deprecatedIn" TEXT,
    "removedIn" TEXT,
    "replacementFlag" TEXT,
    "replacementConfigField" TEXT,
    "notes" TEXT,
    "sourceUrl" TEXT NOT NULL,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FlagChange_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProxyMode" (
    "id" SERIAL NOT NULL,
    "mode" TEXT NOT NULL,
    "os" TEXT NOT NULL,
    "availableFrom" TEXT,
    "stableFrom" TEXT,
    "defaultFrom" TEXT,
    "defaultUntil" TEXT,
    "deprecatedIn" TEXT,
    "removedIn" TEXT,
    "featureGate" TEXT,
    "notes" TEXT,
    "sourceUrl" TEXT NOT NULL,
    "disagreement" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProxyMode_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "FlagChange_changeId_key" ON "FlagChange"("changeId");

-- CreateIndex
CREATE UNIQUE INDEX "ProxyMode_mode_os_key" ON "ProxyMode"("mode", "os");

-- AddForeignKey
ALTER TABLE "FlagChange" ADD CONSTRAINT "FlagChange_componentName_fkey" FOREIGN KEY ("componentName") REFERENCES "Component"("name") ON DELETE RESTRICT ON UPDATE CASCADE;
