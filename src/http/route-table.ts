/**
 * Every route the app serves, by pattern, and which methods each allows.
 * Metrics and request logs name a request by the route it is for (the
 * pattern, `/api/v1/releases/:version`, not the raw path), found from the
 * URL alone, so the name is the same whether the route answered or
 * something before it did (a refused token, a body too large, a rate limit).
 * The same table answers a wrong method on an existing route with 405 and
 * an `Allow` header.
 *
 * Routes are read from the routers themselves (Express keeps each route's
 * path and methods on its stack, as test/openapi.test.ts also relies on);
 * what a router serves through `use` (static files) is added by hand.
 * Matching follows Express's defaults: case-insensitive, a trailing slash
 * allowed, `:param` standing for one non-empty segment.
 */
import type { Request, Router } from "express";

/** The name of a request that no route is for, so label sets stay small. */
export const UNMATCHED = "(unmatched)";

interface Entry {
  readonly pattern: string;
  readonly methods: ReadonlySet<string>;
  readonly test: (path: string) => boolean;
}

interface StackLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

export interface RouteMatch {
  /** The pattern of the route that serves the request's method, else of the first route for the path. */
  readonly pattern: string;
  /** Every method the path allows (HEAD wherever GET is). */
  readonly allowed: readonly string[];
}

export class RouteTable {
  /** Routes without parameters, by their lower-cased path: most requests are found without a scan. */
  private readonly exact = new Map<string, Entry[]>();
  /** Routes with parameters, and prefixes. */
  private readonly patterned: Entry[] = [];
  /** Metrics and the request log both ask. */
  private readonly names = new WeakMap<Request, string>();

  /** Adds the routes a router defines (`router.get(...)` and the like), mounted at `prefix`. */
  addRouter(prefix: string, router: Router): this {
    for (const layer of router.stack as unknown as StackLayer[]) {
      if (layer.route === undefined) continue;
      const methods = Object.keys(layer.route.methods).filter((method) => method !== "_all");
      for (const path of [layer.route.path].flat()) this.add(`${prefix}${path}`, methods);
    }
    return this;
  }

  /** Adds one route; with `prefix`, every path under it too (static files). */
  add(pattern: string, methods: readonly string[], options: { prefix?: boolean } = {}): this {
    const upper = new Set(methods.map((method) => method.toUpperCase()));
    if (upper.has("GET")) upper.add("HEAD");
    const normalised = normalise(pattern);
    if (!options.prefix && !normalised.includes(":")) {
      this.exact.set(normalised, [
        ...(this.exact.get(normalised) ?? []),
        { pattern, methods: upper, test: (path) => path === normalised },
      ]);
      return this;
    }
    const source = normalised
      .split("/")
      .map((segment) =>
        segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    const expression = new RegExp(`^${source}${options.prefix ? "(/.*)?" : ""}$`);
    this.patterned.push({
      pattern: options.prefix ? `${pattern}/*` : pattern,
      methods: upper,
      test: (path) => expression.test(path),
    });
    return this;
  }

  /** The route(s) a path is for, whatever the method; undefined when none is. */
  match(method: string, path: string): RouteMatch | undefined {
    const normalised = normalise(path);
    const found = [
      ...(this.exact.get(normalised) ?? []),
      ...this.patterned.filter((entry) => entry.test(normalised)),
    ];
    if (found.length === 0) return undefined;
    const upper = method.toUpperCase();
    const serving = found.find((entry) => entry.methods.has(upper)) ?? found[0]!;
    const allowed = [...new Set(found.flatMap((entry) => [...entry.methods]))].sort();
    return { pattern: serving.pattern, allowed };
  }

  /** The name of the route a request is for: its pattern, or UNMATCHED (found once per request). */
  name(req: Request): string {
    let name = this.names.get(req);
    if (name === undefined) {
      name = this.match(req.method, pathOf(req))?.pattern ?? UNMATCHED;
      this.names.set(req, name);
    }
    return name;
  }
}

/** The request's path as the client sent it (Express shortens req.path inside mounted routers). */
export function pathOf(req: Request): string {
  return withoutQuery(req.originalUrl);
}

/** A request target's path, as Express's req.path has it: the query cut off, nothing decoded. */
export function withoutQuery(url: string): string {
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

function normalise(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith("/") ? lower.slice(0, -1) : lower;
}
