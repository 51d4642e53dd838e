-- The scheduled refresh's last read of each upstream source: when, what came of it, and which kinds of knowledge it speaks about.
CREATE TABLE "KbSourceCheck" (
    "source" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "lastAttemptAt" TIMESTAMP(3) NOT NULL,
    "lastSuccessAt" TIMESTAMP(3),
    "outcome" TEXT NOT NULL,
    "message" TEXT,
    "revision" TEXT,
    "entities" TEXT[],
    "filed" INTEGER NOT NULL DEFAULT 0,
    "known" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "KbSourceCheck_pkey" PRIMARY KEY ("source")
);
