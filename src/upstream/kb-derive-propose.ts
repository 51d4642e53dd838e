/**
 * `npm run kb:derive -- --propose`: files what the derivations find as
 * proposals in the database of DATABASE_URL, for a reviewer to approve or
 * reject (GET /api/v1/proposals). The sources are compared with the
 * database's knowledge base, not kb/: an approval edits the database, so a
 * proposal says what would change there and which revision of the record it
 * was derived against. Each upstream change is filed once (its fingerprint),
 * also after it was decided.
 */
import { loadConfig, type Config } from "../core/config.js";
import { createLogger } from "../core/logger.js";
import type { EntityName, KbBundle } from "../knowledge/records.js";
import { ENTITIES } from "../knowledge/registry.js";
import { createDatabase, type Database } from "../db/client.js";
import { readKnowledgeBase } from "../db/kb-read.js";
import { fileProposals } from "../db/proposal-store.js";
import { proposalsFrom } from "../services/proposals.js";
import type { Section } from "./derive/compare.js";
import { DeriveInputError } from "./derive/errors.js";
import type { KbReader } from "./kb-derive-files.js";

/**
 * Which derivation made a section, as a proposal names it: by the kind it speaks about, or, where
 * several derive one kind, the name the section gives (Section.derivation), which must be listed here.
 */
const DERIVATIONS: {
  readonly byKind: Partial<Record<EntityName, string>>;
  readonly named: ReadonlySet<string>;
} = {
  byKind: {
    apiRemovals: "kubernetes-api-lifecycle",
    releases: "endoflife-kubernetes",
    runtimeRequirements: "containerd-releases",
    featureGates: "feature-gates",
    coverage: "release-day",
  },
  named: new Set([
    // endoflife.date's products beyond Kubernetes (kb-derive-endoflife.ts)
    "endoflife-platforms",
    "endoflife-runtime-releases",
    "endoflife-addons",
    // kubeadm's constants.go at each release tag (kb-derive-kubeadm.ts)
    "kubeadm-etcd",
    "kubeadm-coredns",
  ]),
};

function derivationOf(section: Section): string {
  if (section.derivation === undefined) return DERIVATIONS.byKind[section.entity] ?? section.entity;
  // A name nobody listed would file proposals no reviewer can tell apart: a bug, not bad input.
  if (!DERIVATIONS.named.has(section.derivation))
    throw new Error(`derivation ${section.derivation} is not listed in DERIVATIONS.named`);
  return section.derivation;
}

/** The database's knowledge base, opened for one --propose run. */
export interface ProposalTarget {
  readonly kb: KbReader;
  file(sections: readonly Section[]): Promise<{ filed: number; known: number }>;
  close(): Promise<void>;
}

function databaseUrl(config: Config): string {
  if (config.database.kind !== "external")
    throw new DeriveInputError(
      "--propose files proposals into a database: set DATABASE_URL (e.g. postgresql://user@host:5432/kubecompat) to the service's database",
    );
  return config.database.url;
}

/** Reads the database's knowledge base (the records proposals are compared with and applied to). */
export async function openProposalTarget(): Promise<ProposalTarget> {
  const db = createDatabase(databaseUrl(loadConfig()), 2, createLogger("warn"));
  let bundle: KbBundle;
  let revision: number;
  try {
    ({ bundle, revision } = await readKnowledgeBase(db));
  } catch (error) {
    await db.$disconnect();
    throw new DeriveInputError(
      `--propose: cannot read the knowledge base in DATABASE_URL's database (${(error as Error).message.split("\n")[0]}); is it migrated (npm run db:migrate) and reachable?`,
    );
  }
  return {
    kb: databaseReader(bundle, revision),
    file: (sections) => fileSections(db, sections, bundle),
    close: () => db.$disconnect(),
  };
}

/** The database's records as kb:derive compares them: without their revision, which no kb/ file has. */
export function databaseReader(bundle: KbBundle, revision: number): KbReader {
  return (entity) => ({
    records: (bundle[entity] as readonly object[]).map((record) => {
      const { revision: _revision, ...fields } = record as Record<string, unknown>;
      return fields;
    }) as unknown as KbBundle[typeof entity],
    file: `the database (revision ${revision}), ${ENTITIES[entity].file}`,
  });
}

export async function fileSections(
  db: Database,
  sections: readonly Section[],
  bundle: KbBundle,
): Promise<{ filed: number; known: number }> {
  const readOn = new Date().toISOString().slice(0, 10);
  const proposals = sections.flatMap((section) =>
    proposalsFrom([section], derivationOf(section), section.revision ?? readOn, bundle),
  );
  const filed = await fileProposals(db, proposals);
  return { filed: filed.length, known: proposals.length - filed.length };
}
