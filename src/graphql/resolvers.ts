/** GraphQL resolvers: translate arguments to domain calls and nothing more. */
import {
  listApiRemovals,
  listComponents,
  listPorts,
  listSkewRules,
  summarise,
} from "../domain/catalog.js";
import { checkRollback } from "../domain/rollback.js";
import { scanManifests } from "../domain/scan.js";
import { planUpgrade } from "../domain/upgrade.js";
import { validateCluster } from "../domain/validate.js";
import { parseMinor } from "../domain/versions.js";
import type { Resolvers } from "./generated/resolvers-types.js";

const optional = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

export const resolvers: Resolvers = {
  Query: {
    knowledgeBase: (_parent, _args, { snapshot }) => summarise(snapshot),
    components: (_parent, { plane }, { snapshot }) => [...listComponents(snapshot, { plane: optional(plane) })],
    component: (_parent, { name }, { snapshot }) => snapshot.findComponent(name) ?? null,
    ports: (_parent, { component }, { snapshot }) => [...listPorts(snapshot, { component: optional(component) })],
    links: (_parent, _args, { snapshot }) => [...snapshot.links],
    skewRules: (_parent, { kubernetesVersion, profile }, { snapshot }) => [
      ...listSkewRules(snapshot, { kubernetesVersion: optional(kubernetesVersion), profile: optional(profile) }),
    ],
    apiRemovals: (_parent, { fromVersion, toVersion }, { snapshot }) => [
      ...listApiRemovals(snapshot, { from: optional(fromVersion), to: optional(toVersion) }),
    ],
    releases: (_parent, _args, { snapshot }) => [...snapshot.releases],
    release: (_parent, { version }, { snapshot }) => snapshot.findRelease(parseMinor(version, "version")) ?? null,
    profiles: (_parent, _args, { snapshot }) => [...snapshot.profiles],
    upgradeOrder: (_parent, _args, { snapshot }) => [...snapshot.upgradeDependencies],
    runtimeRequirements: (_parent, _args, { snapshot }) => [...snapshot.runtimeRequirements],
    recommendations: (_parent, _args, { snapshot }) => [...snapshot.recommendations],
    validateCluster: (_parent, { plan, profile, asOf }, { snapshot }) =>
      validateCluster(snapshot, plan.components, { profile, asOf, field: "plan.components" }),
    planUpgrade: (_parent, { current, targetVersion, profile }, { snapshot }) =>
      planUpgrade(snapshot, current.components, targetVersion, { profile }),
    checkRollback: (_parent, { current, component, instance, toVersion, profile }, { snapshot }) =>
      checkRollback(snapshot, { current: current.components, component, instance, toVersion, profile }),
    scanManifests: (_parent, { manifests, targetVersion }, { snapshot }) => scanManifests(snapshot, manifests, targetVersion),
  },
  Component: {
    ports: (component, _args, { snapshot }) => snapshot.ports.filter((port) => port.component === component.name),
  },
  KnowledgeBase: {
    counts: (summary) => Object.entries(summary.counts).map(([entity, count]) => ({ entity, count })),
  },
};
