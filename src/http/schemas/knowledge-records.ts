/**
 * The knowledge base as the read and curation routes show it: each kind's
 * record (the schemas of src/knowledge/records.ts, named for the document),
 * lists of them with the revision they come from, and the summary of the
 * knowledge base as a whole.
 */
import {
  apiRemovalRecord,
  componentRecord,
  flagChangeRecord,
  proxyModeRecord,
  linkRecord,
  portRecord,
  profileRecord,
  recommendationRecord,
  releaseRecord,
  runtimeRequirementRecord,
  skewRuleRecord,
  upgradeDependencyRecord,
  runtimeReleaseRecord,
  hostRequirementRecord,
  coverageRecord,
  apiGroupVersionRecord,
} from "../../knowledge/records.js";
import { z } from "./openapi-zod.js";

export const apiRemoval = (apiRemovalRecord.clone() as unknown as z.ZodType).openapi("ApiRemoval");

export const kbRevision = z
  .number()
  .int()
  .openapi({ description: "The knowledge-base revision the answer comes from." });
export const list = (item: z.ZodType, name: string) =>
  z.object({ items: z.array(item), kbRevision }).openapi(name);

/** A minor the calendar says is out, as the staleness of a kind lists it. */
const minorOut = z
  .object({
    minor: z.string().openapi({ example: "1.37" }),
    since: z
      .string()
      .openapi({ description: "The day it was released, or became overdue by the cadence." }),
    by: z.enum(["RELEASE_DATE", "CADENCE"]),
  })
  .openapi("MinorOut");

/** A coverage row with its age on the day asked about and its kind's staleness (GET /api/v1/coverage). */
export const agedCoverage = z
  .intersection(
    coverageRecord.clone(),
    z.object({
      ageDays: z.number().int().nullable().openapi({
        description:
          "Days from the source's date (sourceDate) to the day asked about; null when the source has no date.",
      }),
      lastChecked: z.string().nullable().openapi({
        description: "The day the source was last checked (for now the source's date).",
      }),
      stale: z
        .object({
          coveredThrough: z.string(),
          since: z.string(),
          missing: z.array(minorOut),
          message: z.string(),
        })
        .nullable()
        .openapi({
          description:
            "The kind's staleness (the same on each of its rows): the minors the calendar says are out (released, or overdue by the cadence of minors) beyond what its released sources cover, since when; null when up to date. A question about such a minor gets KNOWLEDGE_STALE.",
        }),
    }),
  )
  .openapi("AgedCoverage");

export const records = {
  Component: (componentRecord.clone() as unknown as z.ZodType).openapi("Component"),
  Port: (portRecord.clone() as unknown as z.ZodType).openapi("Port"),
  CommunicationLink: (linkRecord.clone() as unknown as z.ZodType).openapi("CommunicationLink"),
  PolicyProfile: (profileRecord.clone() as unknown as z.ZodType).openapi("PolicyProfile"),
  SkewRule: (skewRuleRecord.clone() as unknown as z.ZodType).openapi("SkewRule"),
  ApiRemoval: apiRemoval,
  Release: (releaseRecord.clone() as unknown as z.ZodType).openapi("Release"),
  UpgradeDependency: (upgradeDependencyRecord.clone() as unknown as z.ZodType).openapi(
    "UpgradeDependency",
  ),
  RuntimeRequirement: (runtimeRequirementRecord.clone() as unknown as z.ZodType).openapi(
    "RuntimeRequirement",
  ),
  Recommendation: (recommendationRecord.clone() as unknown as z.ZodType).openapi("Recommendation"),
  FlagChange: (flagChangeRecord.clone() as unknown as z.ZodType).openapi("FlagChange"),
  ProxyMode: (proxyModeRecord.clone() as unknown as z.ZodType).openapi("ProxyMode"),
  RuntimeRelease: (runtimeReleaseRecord.clone() as unknown as z.ZodType).openapi("RuntimeRelease"),
  HostRequirement: (hostRequirementRecord.clone() as unknown as z.ZodType).openapi(
    "HostRequirement",
  ),
  Coverage: (coverageRecord.clone() as unknown as z.ZodType).openapi("Coverage"),
  ApiGroupVersion: (apiGroupVersionRecord.clone() as unknown as z.ZodType).openapi(
    "ApiGroupVersion",
  ),
};

export const kbSummary = z
  .object({
    revision: z.number().int(),
    kbRevision,
    lastImportAt: z.string().nullable(),
    loadedAt: z.string(),
    newestRelease: z.string().nullable(),
    counts: z.record(z.string(), z.number().int()),
    conflicts: z
      .array(
        z
          .object({
            entity: z
              .string()
              .openapi({ description: "The kind of record, e.g. recommendations." }),
            key: z.string().openapi({ description: "The record's natural key." }),
            base: z.record(z.string(), z.unknown()).nullable().openapi({
              description:
                "The record as kb/ had it at the import before (null: kb/ did not have it).",
            }),
            kb: z
              .record(z.string(), z.unknown())
              .nullable()
              .openapi({ description: "The record as kb/ has it now (null: kb/ removed it)." }),
            database: z.record(z.string(), z.unknown()).nullable().openapi({
              description: "The record the database keeps and serves (null: retired at run time).",
            }),
            detectedAt: z.string(),
            source: z.string(),
          })
          .openapi("KbConflict"),
      )
      .openapi({
        description:
          "Open conflicts: records that kb/ and a run-time edit changed differently. The database's value is served until an edit of the record, or an import, resolves the conflict.",
      }),
    coverage: z.array(records.Coverage).openapi({
      description:
        "Where each kind of knowledge ends: per source, the newest Kubernetes minor it covers, with the source's revision and date. A question beyond it gets a KNOWLEDGE_EDGE warning, or KNOWLEDGE_STALE when the calendar says that minor is already out.",
    }),
  })
  .openapi("KnowledgeBaseSummary");
