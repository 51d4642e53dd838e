-- The release calendar's claim gives the months between two minors: a minor beyond the dated calendar is
-- counted as overdue (and the knowledge of it as stale) once that cadence has passed.
ALTER TABLE "KnowledgeCoverage" ADD COLUMN "minorCadenceMonths" INTEGER;
