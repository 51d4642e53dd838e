-- API tokens may be given an end at creation: after it they are refused like revoked ones.
ALTER TABLE "ApiToken" ADD COLUMN "expiresAt" TIMESTAMP(3);
