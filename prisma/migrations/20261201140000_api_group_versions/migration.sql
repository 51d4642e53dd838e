-- The group/versions the API server serves: a scan says which objects it could not judge.

-- CreateTable
CREATE TABLE "ApiGroupVersion" (
    "id" SERIAL NOT NULL,
    "apiVersion" TEXT NOT NULL,
    "group" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "sourceUrl" TEXT NOT NULL,
    "notes" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiGroupVersion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ApiGroupVersion_apiVersion_key" ON "ApiGroupVersion"("apiVersion");
