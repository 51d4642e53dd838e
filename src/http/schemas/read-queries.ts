/**
 * The query strings of the reads that take one (a release, what an upgrade
 * changes, the flows, coverage, the add-on and platform look-ups). Unknown
 * parameters are refused, so a typo is not silently ignored. A route's
 * parameter (`/releases/:version`) is part of its query here, so one schema
 * describes the whole input wherever the question is asked.
 */
import { z } from "./openapi-zod.js";

/** A value typed into a query string: never empty, never a page long. */
export const filterValue = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters");

const asOf = filterValue.optional().openapi({
  description: "The day to judge on, YYYY-MM-DD (default: today).",
  example: "2026-12-06",
});

export const releaseQuery = z.strictObject({
  // Bounded by the domain's version reader, whose refusal says what a version looks like.
  version: z.string().trim().min(1, "must not be empty").openapi({
    description: 'A Kubernetes minor ("1.32"), or "latest" / "oldest-supported" on the day.',
    example: "1.32",
  }),
  asOf,
});

export const impactQuery = z.strictObject({
  from: filterValue.openapi({ description: "The minor the cluster runs.", example: "1.29" }),
  to: filterValue.openapi({ description: "The minor it upgrades to.", example: "1.33" }),
  area: filterValue.optional().openapi({
    description:
      "Comma-separated areas: tenant-isolation, security, networking, storage, scheduling, node, observability.",
    example: "security",
  }),
});

export const flowQuery = z.strictObject({
  from: filterValue.optional().openapi({
    description: "Source role: control-plane, workers or external.",
    example: "workers",
  }),
  to: filterValue
    .optional()
    .openapi({ description: "Destination role.", example: "control-plane" }),
  cni: filterValue.optional().openapi({
    description: "The cluster's CNI: calico, cilium or flannel (its flows are added).",
    example: "calico",
  }),
  version: filterValue.optional().openapi({
    description: "A Kubernetes version: only flows that apply to it.",
    example: "1.31",
  }),
});

export const coverageQuery = z.strictObject({ asOf });

export const lookupQuery = z.strictObject({
  name: filterValue.optional().openapi({
    description: "Part of an id or name, case-insensitive (e.g. cert-manager, eks).",
    example: "cert-manager",
  }),
});
