/**
 * What an agent may read without asking a question: each kind of knowledge
 * (its records, each with its own source, and the coverage rows that say how
 * far the kind reaches and how old it is), the coverage table, and the
 * finding codes with the check each belongs to.
 */
import { McpError, ErrorCode, type Resource } from "@modelcontextprotocol/sdk/types.js";
import { agedCoverage, type LastChecks } from "../domain/coverage-ages.js";
import { FINDING_CHECKS, FINDING_CODES } from "../domain/findings.js";
import { today } from "../domain/validate.js";
import { ENTITIES, ENTITY_NAMES, entityOfCollection } from "../knowledge/registry.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";

const KIND_PREFIX = "kubecompat://kb/";
const COVERAGE = "kubecompat://coverage";
const FINDING_CODES_URI = "kubecompat://finding-codes";

/** Listed fresh each time: a kind may be registered at run time (knowledge/registry.ts). */
export function RESOURCES(): Resource[] {
  return [
    {
      uri: COVERAGE,
      name: "coverage",
      title: "Coverage: what the knowledge base covers, its sources and ages",
      mimeType: "application/json",
    },
    {
      uri: FINDING_CODES_URI,
      name: "finding-codes",
      title: "Finding codes: every code, its check and what it means",
      mimeType: "application/json",
    },
    ...ENTITY_NAMES.map((entity) => ({
      uri: `${KIND_PREFIX}${ENTITIES[entity].collection}`,
      name: ENTITIES[entity].collection,
      title: ENTITIES[entity].title,
      description: `Every record of kb/${ENTITIES[entity].file}, each with its source, and the kind's coverage rows.`,
      mimeType: "application/json",
    })),
  ];
}

export async function readResource(
  snapshot: KbSnapshot,
  uri: string,
  lastChecked: (() => Promise<LastChecks | undefined>) | undefined,
): Promise<unknown> {
  if (uri === FINDING_CODES_URI)
    return { checks: FINDING_CHECKS, codes: FINDING_CODES, kbRevision: snapshot.revision };
  const aged = async () => agedCoverage(snapshot, today(), await lastChecked?.());
  if (uri === COVERAGE) return { items: await aged(), kbRevision: snapshot.revision };
  const entity = uri.startsWith(KIND_PREFIX)
    ? entityOfCollection(uri.slice(KIND_PREFIX.length))
    : undefined;
  if (entity === undefined)
    throw new McpError(
      ErrorCode.InvalidParams,
      `unknown resource ${JSON.stringify(uri)}; list them with resources/list (${COVERAGE}, ${FINDING_CODES_URI}, ${KIND_PREFIX}<kind>)`,
    );
  const coverage = (await aged()).filter((row) => row.knowledge === entity);
  return { kind: entity, items: snapshot.records(entity), coverage, kbRevision: snapshot.revision };
}
