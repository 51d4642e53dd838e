-- The first minor serving an API version and kind, from its APILifecycleIntroduced marker (null where none says).
ALTER TABLE "ApiRemoval" ADD COLUMN "introducedIn" TEXT;
