/**
 * The read API under /api/v1: thin translation between HTTP and the catalog
 * queries of src/domain/catalog.ts. Query strings are validated with zod
 * (unknown parameters are refused so a typo is not silently ignored), and
 * answers carry an ETag of the knowledge-base revision. An answer is
 * serialised once per snapshot and URL (src/rest/answers.ts).
 */
import { Router, type Request } from "express";
import { z } from "zod";
import {
  getComponent,
  listApiRemovals,
  listComponents,
  listFlagChanges,
  listPorts,
  listSkewRules,
  summarise,
} from "../domain/catalog.js";
import { InputError } from "../core/errors.js";
import {
  firewallRules,
  listFlows,
  parseRoleCidrs,
  type FirewallFormat,
} from "../domain/firewall.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import type { EntityName } from "../knowledge/records.js";
import { ENTITIES, ENTITY_NAMES } from "../knowledge/registry.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { AnswerCache } from "../services/answer-cache.js";
import type { RefreshLedger } from "../services/refresh-state.js";
import { readRoute, type SentAnswer } from "./answers.js";
import { questionNamed } from "../http/questions.js";
import { filterValue, flowQuery } from "../http/schemas/read-queries.js";

/**
 * The query string (and the route's parameters, which win over a query parameter of the same name)
 * checked against a read's schema: a shape, or a question's whole schema from src/http/schemas/.
 */
function parseQuery<T extends z.ZodRawShape>(shape: T, req: Request): z.infer<z.ZodObject<T>>;
function parseQuery(schema: z.ZodType, req: Request): unknown;
function parseQuery(shape: z.ZodRawShape | z.ZodType, req: Request): unknown {
  const schema = shape instanceof z.ZodType ? shape : z.strictObject(shape);
  // Only the parameters the schema names: `/components/:name` reads its name itself.
  const declared = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  const params = Object.entries(req.params as Record<string, string>).filter(([key]) =>
    declared.includes(key),
  );
  const parsed = schema.safeParse({ ...(req.query as object), ...Object.fromEntries(params) });
  if (!parsed.success) {
    // An unknown parameter is said first: a typo of a required one (?form=1.24) should be named as the typo.
    const issue =
      parsed.error.issues.find((candidate) => candidate.code === "unrecognized_keys") ??
      parsed.error.issues[0];
    if (issue?.code === "unrecognized_keys") {
      const allowed = declared.filter((key) => !(key in (req.params as object)));
      throw new InputError(
        `unknown query parameter ${issue.keys.map((key) => `"${key}"`).join(", ")}; this route accepts ${allowed.length > 0 ? allowed.join(", ") : "none"}`,
        issue.keys[0],
      );
    }
    const field = issue?.path.join(".") ?? "query";
    throw new InputError(
      `query parameter ${field} ${issue?.message ?? "is invalid"}${Array.isArray(req.query[field]) ? " (give it once)" : ""}`,
      field,
    );
  }
  return parsed.data;
}

const COVERAGE = questionNamed("coverage");
const RELEASE_STATUS = questionNamed("release_status");
const UPGRADE_IMPACT = questionNamed("upgrade_impact");
const FIREWALL_FLOWS = questionNamed("firewall_flows");

function items(
  snapshot: KbSnapshot,
  list: readonly unknown[],
): { items: readonly unknown[]; kbRevision: number } {
  return { items: list, kbRevision: snapshot.revision };
}

/** Mounts one read; route parameters (`:name`, `:version`) are always present on the routes that declare them. */
type Get = <Parameters extends Record<string, string> = Record<never, string>>(
  route: string,
  read: (req: Request<Parameters>, snapshot: KbSnapshot) => unknown,
) => void;

export function readRoutes(
  kb: KnowledgeBase,
  answers: AnswerCache<SentAnswer> = new AnswerCache(0),
  ledger?: RefreshLedger,
): Router {
  const router = Router();
  // Before the registry's reads: its lastChecked is the refresh's, read from the database, so never remembered.
  router.get(`/${ENTITIES.coverage.collection}`, async (req, res) => {
    const answer = await COVERAGE.answer(kb.current(), parseQuery(COVERAGE.input, req), {
      lastChecked: () => ledger?.lastChecked() ?? Promise.resolve(undefined),
    });
    res.setHeader("Cache-Control", "no-cache");
    res.json(answer);
  });
  const get: Get = (route, read) =>
    router.get(
      route,
      readRoute(kb, answers, read as (req: Request, snapshot: KbSnapshot) => unknown),
    );
  // Registration order is the order of the OpenAPI document and docs/routes.md.
  catalogReads(get);
  networkReads(get);
  registryReads(get);
  return router;
}

/** The catalog: summary, components, ports, skew rules, flag changes, API removals, releases, upgrade impact. */
function catalogReads(get: Get): void {
  get("/kb", (req, snapshot) => {
    parseQuery({}, req);
    return { ...summarise(snapshot), kbRevision: snapshot.revision };
  });

  get("/components", (req, snapshot) => {
    const query = parseQuery({ plane: filterValue.optional() }, req);
    return items(snapshot, listComponents(snapshot, query));
  });

  get<{ name: string }>("/components/:name", (req, snapshot) => {
    parseQuery({}, req);
    const component = getComponent(snapshot, req.params.name);
    return { ...component, kbRevision: snapshot.revision };
  });

  get("/ports", (req, snapshot) => {
    const query = parseQuery({ component: filterValue.optional() }, req);
    return items(snapshot, listPorts(snapshot, query));
  });

  get("/skew-rules", (req, snapshot) => {
    const query = parseQuery(
      { kubernetesVersion: filterValue.optional(), profile: filterValue.optional() },
      req,
    );
    return items(snapshot, listSkewRules(snapshot, query));
  });

  get("/flag-changes", (req, snapshot) => {
    const query = parseQuery({ component: filterValue.optional() }, req);
    return items(snapshot, listFlagChanges(snapshot, query));
  });

  get("/api-removals", (req, snapshot) => {
    const query = parseQuery({ from: filterValue.optional(), to: filterValue.optional() }, req);
    return items(snapshot, listApiRemovals(snapshot, query));
  });

  for (const question of [RELEASE_STATUS, UPGRADE_IMPACT])
    get(question.rest.path, (req, snapshot) =>
      question.answer(snapshot, parseQuery(question.input, req), {}),
    );
}

/** The network: flows between components and the firewall rules that allow them. */
function networkReads(get: Get): void {
  get(FIREWALL_FLOWS.rest.path, (req, snapshot) =>
    FIREWALL_FLOWS.answer(snapshot, parseQuery(FIREWALL_FLOWS.input, req), {}),
  );

  get("/firewall-rules", (req, snapshot) => {
    const query = parseQuery(
      {
        ...flowQuery.shape,
        format: z
          .enum(["nftables", "iptables", "json"], { message: "must be nftables, iptables or json" })
          .default("json"),
        cidrs: z.string().max(4000).optional(),
      },
      req,
    );
    const list = listFlows(snapshot, query);
    const format: FirewallFormat = query.format;
    return {
      format,
      rules: firewallRules(list, format, parseRoleCidrs(query.cidrs)),
      flows: list.flows.length,
      notes: list.notes,
      kbRevision: snapshot.revision,
    };
  });
}

// Every other kind of knowledge in the registry: its whole list, under its collection.
function registryReads(get: Get): void {
  const custom = new Set<EntityName>([
    "components",
    "ports",
    "skewRules",
    "apiRemovals",
    "flagChanges",
  ]);
  for (const entity of ENTITY_NAMES.filter((candidate) => !custom.has(candidate))) {
    // Coverage rows come with their age, last check and kind's staleness: mounted in readRoutes.
    if (entity !== "coverage")
      get(`/${ENTITIES[entity].collection}`, (req, snapshot) => {
        parseQuery({}, req);
        return items(snapshot, snapshot.records(entity));
      });
  }
}
