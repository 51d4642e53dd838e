-- Whether a coverage claim rests on released sources or on pre-release material (alpha/beta notes, master's markers).
ALTER TABLE "KnowledgeCoverage" ADD COLUMN "stage" TEXT NOT NULL DEFAULT 'RELEASED';
