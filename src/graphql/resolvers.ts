/**
 * GraphQL resolvers: translate arguments to domain calls and nothing more. The kinds' plain lists are not
 * here: their resolvers are derived from the entity registry (kind-lists.ts).
 */
import {
  listApiRemovals,
  listComponents,
  listFlagChanges,
  listPorts,
  listSkewRules,
  summarise,
} from "../domain/catalog.js";
import { checkNodePoolRollback, checkNodePoolUpgrade } from "../domain/node-pool.js";
import { checkRollback } from "../domain/rollback.js";
import { scanSteps } from "../domain/scan.js";
import { fixSteps } from "../domain/manifest-fix.js";
import { chartScanSteps } from "../domain/chart-scan.js";
import { inSlices } from "../core/slices.js";
import { findAddon } from "../domain/addons.js";
import { scanCluster } from "../domain/cluster-evidence.js";
import { planUpgradeFromKubectl, validateFromKubectl } from "../domain/from-kubectl.js";
import type { KubectlInputs } from "../domain/kubectl-inputs.js";
import { checkFirewall, firewallRules, listFlows, parseRoleCidrs } from "../domain/firewall.js";
import { upgradeImpact } from "../domain/impact.js";
import { planUpgrade } from "../domain/upgrade.js";
import { parseAsOf, today, validateCluster } from "../domain/validate.js";
import { releaseStatus } from "../domain/release-status.js";
import { ageDaysOf, lastCheckedOf, staleAnswer } from "../domain/coverage-ages.js";
import { readMinor } from "../domain/version-reader.js";
import { filesFromBundle } from "../knowledge/export.js";
import { requireImporter } from "../http/auth.js";
import { parseInput } from "../http/input.js";
import { chartScanRequest } from "../http/schemas/scan-requests.js";
import { InputError, UnavailableError } from "../core/errors.js";
import type { Curator } from "../services/curation.js";
import type { EntityName } from "../knowledge/records.js";
import { entityOfGraphqlValue } from "../knowledge/registry.js";
import type { KbEntity, KubectlOutputsInput, Resolvers } from "./generated/resolvers-types.js";
import { JSONObjectScalar, JSONScalar } from "./json-scalar.js";
import { inDetail, summaryOf } from "./answer-detail.js";

const optional = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** The knowledge-base kind a GraphQL KbEntity value names, from the entity registry. */
function entityOf(value: KbEntity): EntityName {
  const entity = entityOfGraphqlValue(value);
  // The SDL's enum and the registry are kept equal by a test; a value outside it is a build mistake.
  if (entity === undefined) throw new Error(`KbEntity ${value} has no row in the entity registry`);
  return entity;
}

/** One output as JSON or as text, never both: which one kubectl printed must not be a guess. */
export function kubectlInputs(given: KubectlOutputsInput): KubectlInputs {
  const either = (json: unknown, text: string | null | undefined, field: string): unknown => {
    if (json != null && text != null)
      throw new InputError(
        `kubectl.${field} and kubectl.${field}Text are the same output; give one of them`,
        `kubectl.${field}`,
      );
    return json ?? optional(text);
  };
  return {
    kubectlVersion: either(given.version, given.versionText, "version"),
    nodes: either(given.nodes, given.nodesText, "nodes"),
    workloads: optional(given.workloads),
  };
}

function curatorOf(curator: Curator | undefined): Curator {
  if (curator === undefined)
    throw new UnavailableError("this instance serves a read-only knowledge base");
  return curator;
}

export const resolvers: Resolvers = {
  Query: {
    knowledgeBase: (_parent, _args, { snapshot }) => summarise(snapshot),
    components: (_parent, { plane }, { snapshot }) => [
      ...listComponents(snapshot, { plane: optional(plane) }),
    ],
    component: (_parent, { name }, { snapshot }) => snapshot.findComponent(name) ?? null,
    ports: (_parent, { component }, { snapshot }) => [
      ...listPorts(snapshot, { component: optional(component) }),
    ],
    skewRules: (_parent, { kubernetesVersion, profile }, { snapshot }) => [
      ...listSkewRules(snapshot, {
        kubernetesVersion: optional(kubernetesVersion),
        profile: optional(profile),
      }),
    ],
    apiRemovals: (_parent, { fromVersion, toVersion }, { snapshot }) => [
      ...listApiRemovals(snapshot, { from: optional(fromVersion), to: optional(toVersion) }),
    ],
    releases: (_parent, _args, { snapshot }) => {
      const day = today();
      return snapshot.releases.map((release) => ({
        ...release,
        support: releaseStatus(snapshot, release, day),
      }));
    },
    release: (_parent, { version, asOf }, { snapshot }) => {
      const day = parseAsOf(asOf, "asOf");
      const release = snapshot.findRelease(readMinor(snapshot, version, "version", day));
      return release === undefined
        ? null
        : { ...release, support: releaseStatus(snapshot, release, day) };
    },
    flagChanges: (_parent, { component }, { snapshot }) => [
      ...listFlagChanges(snapshot, { component: optional(component) }),
    ],
    featureGates: (_parent, { name }, { snapshot }) =>
      snapshot.featureGates.filter(
        (gate) => name === null || name === undefined || gate.name === name,
      ),
    addons: (_parent, { name }, { snapshot }) =>
      name === null || name === undefined
        ? [...snapshot.addons]
        : snapshot.addons.filter((addon) => addon === findAddon(snapshot, name)),
    addonApis: (_parent, { addon }, { snapshot }) =>
      snapshot.addonApis.filter(
        (record) => addon === null || addon === undefined || record.addon === addon,
      ),
    upgradeImpact: (_parent, { fromVersion, toVersion, areas }, { snapshot }) =>
      upgradeImpact(snapshot, fromVersion, toVersion, { areas }),
    flows: (_parent, query, { snapshot }) => listFlows(snapshot, query),
    firewallRules: (_parent, { format, cidrs, ...query }, { snapshot }) => {
      const list = listFlows(snapshot, query);
      const chosen =
        format === "NFTABLES" ? "nftables" : format === "IPTABLES" ? "iptables" : "json";
      return {
        format: chosen,
        rules: firewallRules(list, chosen, parseRoleCidrs(cidrs)),
        flows: list.flows.length,
        notes: [...list.notes],
        kbRevision: snapshot.revision,
      };
    },
    checkFirewall: (_parent, { allowed, cni, version, detail }, { snapshot }) =>
      inDetail(checkFirewall(snapshot, allowed, { cni, version }), detail),
    validateCluster: (_parent, { plan, profile, asOf, platform, detail }, { snapshot }) =>
      inDetail(
        validateCluster(snapshot, plan.components, {
          profile,
          asOf,
          platform,
          field: "plan.components",
        }),
        detail,
      ),
    planUpgrade: (
      _parent,
      { current, targetVersion, profile, asOf, platform, detail },
      { snapshot },
    ) =>
      inDetail(
        planUpgrade(snapshot, current.components, targetVersion, { profile, asOf, platform }),
        detail,
      ),
    validateFromKubectl: (_parent, { kubectl, profile, asOf, platform, detail }, { snapshot }) =>
      inDetail(
        validateFromKubectl(snapshot, kubectlInputs(kubectl), { profile, asOf, platform }),
        detail,
      ),
    planUpgradeFromKubectl: (
      _parent,
      { kubectl, targetVersion, profile, asOf, platform, detail },
      { snapshot },
    ) =>
      inDetail(
        planUpgradeFromKubectl(snapshot, kubectlInputs(kubectl), targetVersion, {
          profile,
          asOf,
          platform,
        }),
        detail,
      ),
    checkRollback: (
      _parent,
      { current, component, instance, toVersion, profile, asOf, platform, upgradedOn, detail },
      { snapshot },
    ) =>
      inDetail(
        checkRollback(snapshot, {
          current: current.components,
          component,
          instance,
          toVersion,
          profile,
          asOf,
          platform,
          upgradedOn,
        }),
        detail,
      ),
    scanCluster: (
      _parent,
      { targetVersion, helmReleases, objects, metrics, auditLog, detail },
      { snapshot },
    ) =>
      inDetail(
        scanCluster(snapshot, { helmReleases, objects, metrics, auditLog }, targetVersion),
        detail,
      ),
    // In slices, so a large scan does not hold other requests (src/core/slices.ts).
    scanManifests: async (
      _parent,
      { manifests, targetVersion, fromVersion, addons, crds, detail },
      { snapshot },
    ) =>
      inDetail(
        await inSlices(
          scanSteps(snapshot, manifests, targetVersion, { fromVersion, addons, crds }),
        ),
        detail,
      ),
    // REST's question scan_chart: its files checked by REST's schema (paths, count, size), run in slices.
    scanChart: async (_parent, { detail, ...asked }, { snapshot }) => {
      const { files, targetVersion, fromVersion, rendered } = parseInput(
        chartScanRequest,
        asked,
        "arguments",
      );
      return inDetail(
        await inSlices(chartScanSteps(snapshot, files, targetVersion, { fromVersion, rendered })),
        detail,
      );
    },
    // The scan after the fix is answered whole, as scanManifests answers with detail FULL.
    fixManifests: async (
      _parent,
      { manifests, targetVersion, fromVersion, allowLossy, fileName, template },
      { snapshot },
    ) => {
      const report = await inSlices(
        fixSteps(snapshot, manifests, targetVersion, {
          fromVersion,
          allowLossy,
          fileName,
          template,
        }),
      );
      return { ...report, after: inDetail(report.after, "FULL") };
    },
    checkNodePoolUpgrade: (
      _parent,
      { controlPlaneVersion, from, to, profile, asOf, platform, detail },
      { snapshot },
    ) =>
      inDetail(
        checkNodePoolUpgrade(snapshot, { controlPlaneVersion, from, to, profile, asOf, platform }),
        detail,
      ),
    checkNodePoolRollback: (
      _parent,
      { controlPlaneVersion, current, rollbackTo, profile, asOf, platform, detail },
      { snapshot },
    ) =>
      inDetail(
        checkNodePoolRollback(snapshot, {
          controlPlaneVersion,
          current,
          rollbackTo,
          profile,
          asOf,
          platform,
        }),
        detail,
      ),
    auditLog: async (_parent, args, { curator, principal }) => {
      const entries = await curatorOf(curator).audit(principal, {
        entity: optional(args.entity),
        key: optional(args.key),
        actor: optional(args.actor),
        limit: Math.min(Math.max(args.limit ?? 100, 1), 500),
        before: optional(args.before),
      });
      return entries.map((entry) => ({
        ...entry,
        at: entry.at.toISOString(),
        before: (entry.before as Record<string, unknown> | null) ?? null,
        after: (entry.after as Record<string, unknown> | null) ?? null,
      }));
    },
  },
  Mutation: {
    createRecord: async (_parent, { entity, record, idempotencyKey }, { curator, principal }) => {
      const result = await curatorOf(curator).create(principal, entityOf(entity), record, {
        idempotencyKey,
      });
      return {
        entity,
        key: result.key,
        record: result.record as Record<string, unknown>,
        retired: false,
        kbRevision: result.kbRevision,
        replayed: result.replayed === true,
      };
    },
    updateRecord: async (
      _parent,
      { entity, key, revision, record, idempotencyKey },
      { curator, principal },
    ) => {
      const result = await curatorOf(curator).update(
        principal,
        entityOf(entity),
        key,
        revision,
        record,
        { idempotencyKey },
      );
      return {
        entity,
        key: result.key,
        record: result.record as Record<string, unknown>,
        retired: false,
        kbRevision: result.kbRevision,
        replayed: result.replayed === true,
      };
    },
    retireRecord: async (
      _parent,
      { entity, key, revision, idempotencyKey },
      { curator, principal },
    ) => {
      const result = await curatorOf(curator).retire(principal, entityOf(entity), key, revision, {
        idempotencyKey,
      });
      return {
        entity,
        key: result.key,
        record: null,
        retired: true,
        kbRevision: result.kbRevision,
        replayed: result.replayed === true,
      };
    },
    importKnowledgeBase: async (_parent, { bundle }, { curator, principal }) => {
      const importing = curatorOf(curator);
      requireImporter(principal);
      const result = await importing.import(principal, filesFromBundle(bundle));
      return {
        changed: result.changed,
        revisionBefore: result.revisionBefore,
        kbRevision: result.revision,
        changes: result.changes.map((change) => ({
          ...change,
          fields: change.fields ? [...change.fields] : null,
        })),
      };
    },
  },
  JSONObject: JSONObjectScalar,
  JSON: JSONScalar,
  Component: {
    ports: (component, _args, { snapshot }) =>
      snapshot.ports.filter((port) => port.component === component.name),
  },
  // Ages and staleness on today, through the same functions as GET /api/v1/coverage.
  Coverage: {
    ageDays: (claim) => ageDaysOf(claim, today()),
    lastChecked: async (claim, _args, { lastChecks }) => lastCheckedOf(claim, await lastChecks()),
    stale: (claim, _args, { snapshot }) => {
      const stale = staleAnswer(snapshot, claim.knowledge as EntityName, today());
      return stale === null ? null : { ...stale, missing: [...stale.missing] };
    },
  },
  // Each answer's summary, of the full answer (answer-detail.ts); the summary's detail is SUMMARY by definition.
  ValidationReport: { summary: summaryOf },
  UpgradePlan: { summary: summaryOf },
  ManifestScanReport: { summary: summaryOf },
  ChartScanReport: { summary: summaryOf },
  ClusterScanReport: { summary: summaryOf },
  FirewallCheck: { summary: summaryOf },
  NodePoolReport: { summary: summaryOf },
  AnswerSummary: { detail: () => "SUMMARY" },
  KnowledgeBase: {
    counts: (summary) =>
      Object.entries(summary.counts).map(([entity, count]) => ({ entity, count })),
  },
};
