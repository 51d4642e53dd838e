-- A managed platform's own runtime rule where it is stricter than upstream's (EKS: containerd 2.0 from 1.36).
ALTER TABLE "RuntimeRequirement" ADD COLUMN "platform" TEXT;
