/**
 * The hostile corpus of the REST face: bodies too large, of the wrong type,
 * malformed or absurdly nested; huge lists; control and invisible characters;
 * SQL; path traversal; prototype-pollution keys; repeated, unknown and huge
 * query parameters; bogus Authorization headers.
 */
import assert from "node:assert/strict";
import { openApiDocument } from "../../src/rest/openapi.js";
import { NASTY_TEXT, SQL, deepArrays, deepObjects, nested, type HostileCase } from "./support.js";

const paths = Object.entries(openApiDocument().paths ?? {});
/** Every POST route the API documents, so a new route is covered the day it is added. */
export const POST_ROUTES = paths
  .filter(([, item]) => "post" in (item as object))
  .map(([path]) => path);
/** The operations (not the knowledge-base collections, which take records, nor the import). */
export const OPERATION_ROUTES = POST_ROUTES.filter((path) =>
  ["/validate", "/upgrade-plan", "/rollback-check", "/scan", "/fix", "/node-pool/"].some((part) =>
    path.includes(part),
  ),
);
/** Read routes without path parameters. */
const READ_ROUTES = paths
  .filter(
    ([path, item]) =>
      "get" in (item as object) &&
      !path.includes("{") &&
      !path.includes("/audit") &&
      !path.includes("/proposals") &&
      !path.includes("/kb/export"),
  )
  .map(([path]) => path);

/** The query parameters the document gives a GET route. */
function documentedParameters(route: string): string[] {
  const item = (openApiDocument().paths ?? {})[route] as
    | { get?: { parameters?: Array<{ name: string; in: string }> } }
    | undefined;
  return (item?.get?.parameters ?? [])
    .filter((parameter) => parameter.in === "query")
    .map((parameter) => parameter.name);
}

const json = (components: unknown[], extra: Record<string, unknown> = {}) => ({
  components,
  ...extra,
});
const kubelet = { component: "kubelet", version: "1.29", instance: "pool-a" };
const apiserver = { component: "kube-apiserver", version: "1.30" };
const current = (components: unknown[]) => ({ components });
const TWELVE_MIB = () =>
  JSON.stringify({
    components: [{ component: "kubelet", version: "1.29", instance: "x".repeat(12 * 1024 * 1024) }],
  });

function bodyTooLarge(): HostileCase[] {
  return OPERATION_ROUTES.map((route) => ({
    name: `413 for 12 MiB of JSON to POST ${route}`,
    method: "POST",
    path: route,
    body: TWELVE_MIB,
    status: 413,
    code: "PAYLOAD_TOO_LARGE",
    message: /larger than the limit/,
  }));
}

function wrongContentTypes(): HostileCase[] {
  const cases: HostileCase[] = [];
  for (const route of POST_ROUTES) {
    // The import turns away anyone but an admin before it reads the body.
    const auth = route.endsWith("/kb/import") ? ("admin" as const) : undefined;
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded"]) {
      cases.push({
        name: `415 for ${contentType} to POST ${route}`,
        method: "POST",
        path: route,
        body: contentType === "text/plain" ? '{"components": []}' : "components=x",
        contentType,
        auth,
        status: 415,
        code: "UNSUPPORTED_MEDIA_TYPE",
      });
    }
  }
  return cases;
}

function malformedJsonOnEveryRoute(): HostileCase[] {
  return POST_ROUTES.map((route) => ({
    name: `400 for truncated JSON to POST ${route}`,
    method: "POST",
    path: route,
    body: '{"components": [{"component": "kubelet", ',
    auth: route.endsWith("/kb/import") ? ("admin" as const) : undefined,
    status: 400,
    code: "BAD_USER_INPUT",
    message: /not valid JSON/,
  }));
}

const validate = (
  name: string,
  body: unknown,
  status: number,
  code: string,
  extra: Partial<HostileCase> = {},
): HostileCase => ({
  name,
  method: "POST",
  path: "/api/v1/validate",
  body,
  status,
  code,
  ...extra,
});

const contentTypes: HostileCase[] = [
  validate("415 for application/xml", "<components/>", 415, "UNSUPPORTED_MEDIA_TYPE", {
    contentType: "application/xml",
  }),
  validate(
    "415 for multipart/form-data",
    "--x\r\nContent-Disposition: form-data; name=components\r\n\r\nx\r\n--x--\r\n",
    415,
    "UNSUPPORTED_MEDIA_TYPE",
    {
      contentType: "multipart/form-data; boundary=x",
    },
  ),
  validate(
    "415 for a body without Content-Type",
    '{"components": []}',
    415,
    "UNSUPPORTED_MEDIA_TYPE",
    { contentType: "none", message: /no Content-Type/ },
  ),
  validate("415 for an unknown charset", '{"components": []}', 415, "UNSUPPORTED_MEDIA_TYPE", {
    contentType: "application/json; charset=klingon",
  }),
  validate(
    "415 for an unknown Content-Encoding",
    '{"components": []}',
    415,
    "UNSUPPORTED_MEDIA_TYPE",
    { headers: { "Content-Encoding": "x-compress-9000" } },
  ),
  validate("400 for a body that claims gzip but is not", '{"components": []}', 400, "BAD_REQUEST", {
    headers: { "Content-Encoding": "gzip" },
  }),
  validate("415 for application/json-patch+json", "[]", 415, "UNSUPPORTED_MEDIA_TYPE", {
    contentType: "application/json-patch+json",
  }),
];

const malformedJson: HostileCase[] = [
  validate("400 for a trailing comma", '{"components": [],}', 400, "BAD_USER_INPUT", {
    message: /not valid JSON/,
  }),
  validate("400 for single-quoted JSON", "{'components': []}", 400, "BAD_USER_INPUT", {
    message: /not valid JSON/,
  }),
  validate(
    "400 for NaN in JSON",
    '{"components": [{"component": "kubelet", "version": NaN}]}',
    400,
    "BAD_USER_INPUT",
    { message: /not valid JSON/ },
  ),
  validate("400 for unquoted keys", "{components: []}", 400, "BAD_USER_INPUT", {
    message: /not valid JSON/,
  }),
  validate("400 for a JSON string instead of an object", '"components"', 400, "BAD_USER_INPUT", {
    message: /not valid JSON/,
  }),
  validate("400 for JSON null", "null", 400, "BAD_USER_INPUT", { message: /not valid JSON/ }),
  validate("400 for a JSON array body", "[]", 400, "BAD_USER_INPUT", { field: "body" }),
  validate("400 for an empty JSON body", "", 400, "BAD_USER_INPUT", {
    field: "components",
    message: /is required/,
  }),
  validate(
    "400 for 1e400 as a version",
    '{"components": [{"component": "kubelet", "version": 1e400}]}',
    400,
    "BAD_USER_INPUT",
    { field: "components[0].version" },
  ),
  validate(
    "400 for UTF-16 bytes declared as UTF-8",
    Buffer.from('{"components": []}', "utf16le"),
    400,
    "BAD_USER_INPUT",
    { message: /not valid JSON/ },
  ),
];

const deepJson: HostileCase[] = [
  validate(
    "400 for JSON nested 33 levels",
    json([{ ...kubelet, instance: nested(33) }]),
    400,
    "BAD_USER_INPUT",
    { message: /nested more than 32 levels/ },
  ),
  validate("400 for a 100 000-deep [[[[...]]]]", deepArrays(100_000), 400, "BAD_USER_INPUT", {
    message: /nested more than 32 levels/,
  }),
  validate('400 for a 100 000-deep {"a":{"a":...}}', deepObjects(100_000), 400, "BAD_USER_INPUT", {
    message: /nested more than 32 levels/,
  }),
  {
    name: "400 for kubectl JSON nested 40 levels",
    method: "POST",
    path: "/api/v1/validate/from-kubectl",
    body: { nodes: { items: [nested(40)] } },
    status: 400,
    code: "BAD_USER_INPUT",
    message: /nested more than 32 levels/,
  },
  {
    name: "400 for deep JSON to the import, before anything else",
    method: "POST",
    path: "/api/v1/kb/import",
    body: deepArrays(50_000),
    status: 400,
    code: "BAD_USER_INPUT",
    message: /nested more than 32 levels/,
  },
];

const many = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    component: "kubelet",
    version: "1.29",
    instance: `pool-${index}`,
  }));
const hugeArrays: HostileCase[] = [
  validate(
    "400 naming components for 100 000 components",
    json(many(100_000)),
    400,
    "BAD_USER_INPUT",
    { field: "components", message: /at most 1000/ },
  ),
  validate("400 for 1001 components, one over the limit", json(many(1001)), 400, "BAD_USER_INPUT", {
    field: "components",
    message: /at most 1000/,
  }),
  {
    name: "400 naming current.components for an upgrade plan of 100 000 components",
    method: "POST",
    path: "/api/v1/upgrade-plan",
    body: { current: current(many(100_000)), targetVersion: "1.31" },
    status: 400,
    code: "BAD_USER_INPUT",
    field: "current.components",
  },
  {
    name: "400 naming current.components for a rollback check of 100 000 components",
    method: "POST",
    path: "/api/v1/rollback-check",
    body: { current: current(many(100_000)), component: "kubelet", toVersion: "1.28" },
    status: 400,
    code: "BAD_USER_INPUT",
    field: "current.components",
  },
  {
    name: "400 naming nodes.items for 5001 nodes",
    method: "POST",
    path: "/api/v1/validate/from-kubectl",
    body: {
      nodes: {
        items: Array.from({ length: 5001 }, (_, index) => ({
          metadata: { name: `n${index}` },
          status: { nodeInfo: { kubeletVersion: "v1.29.0" } },
        })),
      },
    },
    status: 400,
    code: "BAD_USER_INPUT",
    field: "nodes.items",
  },
  {
    name: "400 for an upgrade target 9970 minors away (the planner would walk them one by one)",
    method: "POST",
    path: "/api/v1/upgrade-plan",
    body: { current: current([apiserver]), targetVersion: "1.9999" },
    status: 400,
    code: "BAD_USER_INPUT",
    field: "targetVersion",
    message: /at most 30 minors/,
  },
  {
    name: "400 for a plan of 1000 kube-apiservers across 18 minors (a bounded amount of planning work)",
    method: "POST",
    path: "/api/v1/upgrade-plan",
    body: {
      current: current(
        Array.from({ length: 1000 }, (_, index) => ({
          component: "kube-apiserver",
          version: "1.19",
          instance: `cp-${index}`,
        })),
      ),
      targetVersion: "1.37",
    },
    status: 400,
    code: "BAD_USER_INPUT",
    field: "current.components",
    message: /too large to plan/,
  },
  {
    name: "400 for an upgrade target of another major version",
    method: "POST",
    path: "/api/v1/upgrade-plan",
    body: { current: current([apiserver]), targetVersion: "999.0" },
    status: 400,
    code: "BAD_USER_INPUT",
    field: "targetVersion",
    message: /across major versions/,
  },
];

function strangeCharacters(): HostileCase[] {
  const cases: HostileCase[] = [];
  for (const [kind, text] of Object.entries(NASTY_TEXT)) {
    cases.push(
      validate(
        `400 for a component name with ${kind}`,
        json([{ component: text, version: "1.29" }]),
        400,
        "BAD_USER_INPUT",
        { field: "components[0].component" },
      ),
    );
    cases.push(
      validate(
        `400 for an instance with ${kind}`,
        json([{ component: "kubelet", version: "1.29", instance: `pool-${text}` }]),
        400,
        "BAD_USER_INPUT",
        { field: "components[0].instance" },
      ),
    );
    cases.push(
      validate(
        `400 for a version with ${kind}`,
        json([{ component: "kubelet", version: `1.${text}29` }]),
        400,
        "BAD_USER_INPUT",
        { field: "components[0].version" },
      ),
    );
  }
  cases.push(
    validate(
      "400 for full-width digits in a version",
      json([{ component: "kubelet", version: "１.２９" }]),
      400,
      "BAD_USER_INPUT",
      { field: "components[0].version" },
    ),
  );
  cases.push(
    validate(
      "400 for a profile with a right-to-left override",
      json([kubelet], { profile: "upstream\u202e" }),
      400,
      "BAD_USER_INPUT",
      { field: "profile" },
    ),
  );
  cases.push(
    validate(
      "400 for an asOf with a zero-width space",
      json([kubelet], { asOf: "2026-\u200b01-31" }),
      400,
      "BAD_USER_INPUT",
      { field: "asOf" },
    ),
  );
  cases.push({
    name: "400 for a targetVersion with NUL",
    method: "POST",
    path: "/api/v1/upgrade-plan",
    body: { current: current([apiserver]), targetVersion: "1.31\u0000" },
    status: 400,
    code: "BAD_USER_INPUT",
    field: "targetVersion",
  });
  cases.push({
    name: "400 for a toVersion with an emoji",
    method: "POST",
    path: "/api/v1/rollback-check",
    body: {
      current: current([apiserver, kubelet]),
      component: "kubelet",
      instance: "pool-a",
      toVersion: "1.28\u{1F4A3}",
    },
    status: 400,
    code: "BAD_USER_INPUT",
    field: "toVersion",
  });
  return cases;
}

/** The SQL string in every string field of every operation, and in the query strings and paths that reach the database's data. */
function sqlEverywhere(): HostileCase[] {
  const post = (
    name: string,
    path: string,
    body: unknown,
    field: string,
    status = 400,
    code = "BAD_USER_INPUT",
  ): HostileCase => ({
    name: `${status} for SQL in ${name}`,
    method: "POST",
    path,
    body,
    status,
    code,
    field,
  });
  const upgrade = (components: unknown[], extra: Record<string, unknown> = {}) => ({
    current: current(components),
    targetVersion: "1.31",
    ...extra,
  });
  const rollback = (components: unknown[], extra: Record<string, unknown> = {}) => ({
    current: current(components),
    component: "kubelet",
    instance: "pool-a",
    toVersion: "1.28",
    ...extra,
  });
  const get = (name: string, path: string, status: number, code: string): HostileCase => ({
    name: `${status} for SQL in ${name}`,
    path,
    status,
    code,
  });
  const sql = encodeURIComponent(SQL);
  return [
    post(
      "validate components[0].component",
      "/api/v1/validate",
      json([{ component: SQL, version: "1.29" }]),
      "components[0].component",
    ),
    post(
      "validate components[0].version",
      "/api/v1/validate",
      json([{ component: "kubelet", version: SQL }]),
      "components[0].version",
    ),
    post(
      "validate components[0].instance",
      "/api/v1/validate",
      json([{ component: "kubelet", version: "1.29", instance: SQL }]),
      "components[0].instance",
    ),
    post("validate profile", "/api/v1/validate", json([kubelet], { profile: SQL }), "profile"),
    post("validate asOf", "/api/v1/validate", json([kubelet], { asOf: SQL }), "asOf"),
    post(
      "upgrade-plan component",
      "/api/v1/upgrade-plan",
      upgrade([apiserver, { component: SQL, version: "1.30" }]),
      "current.components[1].component",
    ),
    post(
      "upgrade-plan version",
      "/api/v1/upgrade-plan",
      upgrade([{ ...apiserver, version: SQL }]),
      "current.components[0].version",
    ),
    post(
      "upgrade-plan instance",
      "/api/v1/upgrade-plan",
      upgrade([{ ...apiserver, instance: SQL }]),
      "current.components[0].instance",
    ),
    post(
      "upgrade-plan targetVersion",
      "/api/v1/upgrade-plan",
      upgrade([apiserver], { targetVersion: SQL }),
      "targetVersion",
    ),
    post(
      "upgrade-plan profile",
      "/api/v1/upgrade-plan",
      upgrade([apiserver], { profile: SQL }),
      "profile",
    ),
    post(
      "rollback-check current component",
      "/api/v1/rollback-check",
      rollback([apiserver, { component: SQL, version: "1.29" }]),
      "current.components[1].component",
    ),
    post(
      "rollback-check component",
      "/api/v1/rollback-check",
      rollback([apiserver, kubelet], { component: SQL }),
      "component",
    ),
    post(
      "rollback-check instance",
      "/api/v1/rollback-check",
      rollback([apiserver, kubelet], { instance: SQL }),
      "instance",
    ),
    post(
      "rollback-check toVersion",
      "/api/v1/rollback-check",
      rollback([apiserver, kubelet], { toVersion: SQL }),
      "toVersion",
    ),
    post(
      "rollback-check profile",
      "/api/v1/rollback-check",
      rollback([apiserver, kubelet], { profile: SQL }),
      "profile",
    ),
    post(
      "scan targetVersion",
      "/api/v1/scan",
      { manifests: "apiVersion: v1\nkind: Pod\n", targetVersion: SQL },
      "targetVersion",
    ),
    post(
      "scan/chart targetVersion",
      "/api/v1/scan/chart",
      {
        files: { "Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n" },
        targetVersion: SQL,
      },
      "targetVersion",
    ),
    {
      // A chart's files are text keyed by path: nothing is opened, a hostile name is only a name.
      name: "200 for SQL as chart file names and texts, read as text only",
      method: "POST",
      path: "/api/v1/scan/chart",
      body: {
        files: {
          "Chart.yaml": `apiVersion: v2\nname: web\nversion: 1.0.0\ndescription: |\n  ${SQL}\n`,
          [`templates/${SQL}.yaml`]: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n`,
        },
        targetVersion: "1.29",
      },
      status: 200,
      code: null,
      check: (body) => {
        const scan = body as { objectsScanned: number; rendering: string; chart: { name: string } };
        assert.equal(scan.objectsScanned, 1);
        assert.equal(scan.rendering, "TEMPLATES");
        assert.equal(scan.chart.name, "web");
      },
    },
    post(
      "scan/chart with a file outside the chart (../)",
      "/api/v1/scan/chart",
      {
        files: {
          "Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
          "../../etc/passwd": SQL,
        },
        targetVersion: "1.29",
      },
      "files",
    ),
    post(
      "scan/chart without Chart.yaml",
      "/api/v1/scan/chart",
      { files: { "templates/x.yaml": SQL }, targetVersion: "1.29" },
      "files",
    ),
    {
      // Not YAML an object can be read from: reported as an unreadable document, never executed.
      name: "200 for SQL in scan manifests, which is no manifest",
      method: "POST",
      path: "/api/v1/scan",
      body: { manifests: SQL, targetVersion: "1.29" },
      status: 200,
      code: null,
      check: (body) => {
        const scan = body as { objectsScanned: number; findings: unknown[] };
        assert.equal(scan.objectsScanned, 0);
        assert.deepEqual(scan.findings, []);
      },
    },
    post(
      "kubectl's gitVersion",
      "/api/v1/validate/from-kubectl",
      { kubectlVersion: { serverVersion: { gitVersion: SQL } } },
      "kubectlVersion.serverVersion.gitVersion",
    ),
    post(
      "a node's kubeletVersion",
      "/api/v1/validate/from-kubectl",
      {
        nodes: {
          items: [{ metadata: { name: "n1" }, status: { nodeInfo: { kubeletVersion: SQL } } }],
        },
      },
      "nodes.items[0].status.nodeInfo.kubeletVersion",
    ),
    post(
      "fix targetVersion",
      "/api/v1/fix",
      { manifests: "apiVersion: v1\nkind: Pod\n", targetVersion: SQL },
      "targetVersion",
    ),
    post(
      "fix fileName (a label, held to 200 characters)",
      "/api/v1/fix",
      { manifests: "apiVersion: v1\nkind: Pod\n", targetVersion: "1.25", fileName: SQL.repeat(20) },
      "fileName",
    ),
    {
      name: "400 for SQL in the YAML fix's targetVersion",
      method: "POST",
      path: `/api/v1/fix?targetVersion=${sql}`,
      body: "apiVersion: v1\nkind: Pod\n",
      contentType: "application/yaml",
      status: 400,
      code: "BAD_USER_INPUT",
      field: "targetVersion",
    },
    {
      name: "400 for allowLossy that is not true or false in the YAML fix's query",
      method: "POST",
      path: "/api/v1/fix?targetVersion=1.25&allowLossy=yes",
      body: "apiVersion: v1\nkind: Pod\n",
      contentType: "application/yaml",
      status: 400,
      code: "BAD_USER_INPUT",
      field: "allowLossy",
    },
    {
      name: "400 for SQL in the YAML scan's targetVersion",
      method: "POST",
      path: `/api/v1/scan?targetVersion=${sql}`,
      body: "apiVersion: v1\nkind: Pod\n",
      contentType: "application/yaml",
      status: 400,
      code: "BAD_USER_INPUT",
      field: "targetVersion",
    },
    get("?plane=", `/api/v1/components?plane=${sql}`, 400, "BAD_USER_INPUT"),
    get("?component= of ports", `/api/v1/ports?component=${sql}`, 400, "BAD_USER_INPUT"),
    get(
      "?kubernetesVersion= of skew rules",
      `/api/v1/skew-rules?kubernetesVersion=${sql}`,
      400,
      "BAD_USER_INPUT",
    ),
    get("?profile= of skew rules", `/api/v1/skew-rules?profile=${sql}`, 400, "BAD_USER_INPUT"),
    get("?from= of API removals", `/api/v1/api-removals?from=${sql}`, 400, "BAD_USER_INPUT"),
    get("?to= of API removals", `/api/v1/api-removals?to=${sql}`, 400, "BAD_USER_INPUT"),
    get("a component's name in the path", `/api/v1/components/${sql}`, 404, "NOT_FOUND"),
    get("a release's version in the path", `/api/v1/releases/${sql}`, 400, "BAD_USER_INPUT"),
    {
      name: "404 for SQL as the key of a retirement",
      method: "DELETE",
      path: `/api/v1/api-removals/${sql}?revision=1`,
      auth: "editor",
      status: 404,
      code: "NOT_FOUND",
    },
    {
      name: "404 for SQL as the key of an update",
      method: "PUT",
      path: `/api/v1/releases/${sql}`,
      auth: "editor",
      body: {
        revision: 1,
        version: "1.99",
        releaseDate: "2030-01-01",
        sourceUrl: "https://kubernetes.io/releases/",
      },
      status: 404,
      code: "NOT_FOUND",
    },
    {
      name: "400 for SQL in every field of a new record",
      method: "POST",
      path: "/api/v1/api-removals",
      auth: "editor",
      body: {
        apiVersion: SQL,
        group: SQL,
        version: SQL,
        kind: SQL,
        removedIn: SQL,
        sourceUrl: SQL,
      },
      status: 400,
      code: "BAD_USER_INPUT",
      field: "record.apiVersion",
    },
  ];
}

const LONG_65 = `1.29.0-${"a".repeat(58)}`;
const longStrings: HostileCase[] = [
  validate(
    "400 for a 65-character version",
    json([{ component: "kubelet", version: LONG_65 }]),
    400,
    "BAD_USER_INPUT",
    { field: "components[0].version", message: /longer than 64/ },
  ),
  validate(
    "400 for a 201-character version",
    json([{ component: "kubelet", version: "1".repeat(201) }]),
    400,
    "BAD_USER_INPUT",
    { field: "components[0].version", message: /at most 200/ },
  ),
  validate(
    "400 for a 5 MB version",
    json([{ component: "kubelet", version: "9".repeat(5_000_000) }]),
    400,
    "BAD_USER_INPUT",
    { field: "components[0].version", message: /at most 200/ },
  ),
  validate(
    "400 for a version with 5-digit minor",
    json([{ component: "kubelet", version: "1.99999" }]),
    400,
    "BAD_USER_INPUT",
    { field: "components[0].version" },
  ),
  validate(
    "400 for a runtime version with 65 characters",
    json([{ component: "containerd", version: LONG_65 }]),
    400,
    "BAD_USER_INPUT",
    { field: "components[0].version" },
  ),
  validate(
    "400 for a 201-character asOf",
    json([kubelet], { asOf: "2".repeat(201) }),
    400,
    "BAD_USER_INPUT",
    { field: "asOf" },
  ),
  {
    name: "400 for a 65-character targetVersion",
    method: "POST",
    path: "/api/v1/upgrade-plan",
    body: { current: current([apiserver]), targetVersion: LONG_65 },
    status: 400,
    code: "BAD_USER_INPUT",
    field: "targetVersion",
  },
  {
    name: "400 for a 201-character toVersion",
    method: "POST",
    path: "/api/v1/rollback-check",
    body: {
      current: current([apiserver, kubelet]),
      component: "kubelet",
      toVersion: "1".repeat(201),
    },
    status: 400,
    code: "BAD_USER_INPUT",
    field: "toVersion",
  },
  {
    name: "400 for a 10 000-character release in the path",
    path: `/api/v1/releases/${"1".repeat(10_000)}`,
    status: 400,
    code: "BAD_USER_INPUT",
    message: /longer than 64/,
  },
  {
    name: "400 for a 101-character kubernetesVersion query",
    path: `/api/v1/skew-rules?kubernetesVersion=${"1".repeat(101)}`,
    status: 400,
    code: "BAD_USER_INPUT",
    message: /at most 100/,
  },
];

const pathTraversal: HostileCase[] = [
  {
    name: "404 for ../../etc/passwd as a component",
    path: "/api/v1/components/..%2F..%2Fetc%2Fpasswd",
    status: 404,
    code: "NOT_FOUND",
    message: /no component is called "\.\.\/\.\.\/etc\/passwd"/,
  },
  {
    name: "400 for %2e%2e%2f as a release",
    path: "/api/v1/releases/%2e%2e%2f",
    status: 400,
    code: "BAD_USER_INPUT",
    field: "version",
  },
  {
    name: "404 for an encoded NUL after a component name",
    path: "/api/v1/components/kubelet%00",
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "400 for an encoded NUL after a release",
    path: "/api/v1/releases/1.30%00",
    status: 400,
    code: "BAD_USER_INPUT",
  },
  {
    name: "400 for broken percent-encoding in a component",
    path: "/api/v1/components/%E0%A4%A",
    status: 400,
    code: "BAD_USER_INPUT",
    message: /percent-encoding/,
  },
  {
    name: "400 for a lone % as a release",
    path: "/api/v1/releases/%",
    status: 400,
    code: "BAD_USER_INPUT",
    message: /percent-encoding/,
  },
  {
    name: "400 for ..%5c..%5cwindows as a release",
    path: "/api/v1/releases/..%5c..%5cwindows",
    status: 400,
    code: "BAD_USER_INPUT",
  },
  {
    name: "404 for a literal /../ in the API path",
    path: "/api/v1/../../etc/passwd",
    status: 404,
    code: "NOT_FOUND",
  },
  {
    name: "403 for ..%2f out of the docs assets",
    path: "/docs/assets/..%2f..%2fpackage.json",
    status: 403,
    code: "FORBIDDEN",
  },
  {
    name: "403 for %2e%2e/ out of the docs assets",
    path: "/docs/assets/%2e%2e/%2e%2e/package.json",
    status: 403,
    code: "FORBIDDEN",
  },
  {
    name: "400 for an encoded NUL in a docs asset",
    path: "/docs/assets/swagger-ui.css%00",
    status: 400,
    code: "BAD_REQUEST",
  },
  {
    name: "404 for ../ as the key of a retirement",
    method: "DELETE",
    path: "/api/v1/api-removals/..%2F..%2Fapi-removals?revision=1",
    auth: "editor",
    status: 404,
    code: "NOT_FOUND",
  },
];

function prototypePollution(): HostileCase[] {
  const unknownField = (key: string) => new RegExp(`unknown field "${key}"`);
  const cases: HostileCase[] = [];
  const bodies: Array<[string, string]> = [
    [
      "/api/v1/validate",
      '{"components": [{"component": "kubelet", "version": "1.29"}], "__proto__": {"polluted": "yes"}}',
    ],
    [
      "/api/v1/upgrade-plan",
      '{"current": {"components": []}, "targetVersion": "1.31", "__proto__": {"polluted": "yes"}}',
    ],
    [
      "/api/v1/rollback-check",
      '{"current": {"components": []}, "component": "kubelet", "toVersion": "1.28", "__proto__": {"polluted": "yes"}}',
    ],
    [
      "/api/v1/scan",
      '{"manifests": "", "targetVersion": "1.29", "__proto__": {"polluted": "yes"}}',
    ],
    [
      "/api/v1/scan/chart",
      '{"files": {"Chart.yaml": "name: a\\nversion: 1.0.0\\n"}, "targetVersion": "1.29", "__proto__": {"polluted": "yes"}}',
    ],
    ["/api/v1/fix", '{"manifests": "", "targetVersion": "1.25", "__proto__": {"polluted": "yes"}}'],
    ["/api/v1/validate/from-kubectl", '{"__proto__": {"polluted": "yes"}}'],
    [
      "/api/v1/upgrade-plan/from-kubectl",
      '{"targetVersion": "1.31", "__proto__": {"polluted": "yes"}}',
    ],
  ];
  for (const [path, body] of bodies) {
    cases.push({
      name: `400 for __proto__ in the body of POST ${path}`,
      method: "POST",
      path,
      body,
      status: 400,
      code: "BAD_USER_INPUT",
      message: unknownField("__proto__"),
    });
  }
  cases.push(
    validate(
      "400 for __proto__ inside a component",
      '{"components": [{"component": "kubelet", "version": "1.29", "__proto__": {"polluted": "yes"}}]}',
      400,
      "BAD_USER_INPUT",
      {
        message: unknownField("__proto__"),
      },
    ),
    validate(
      "400 for constructor.prototype in the body",
      '{"components": [], "constructor": {"prototype": {"polluted": "yes"}}}',
      400,
      "BAD_USER_INPUT",
      {
        message: unknownField("constructor"),
      },
    ),
    validate(
      "400 for __proto__ as a component name",
      json([{ component: "__proto__", version: "1.29" }]),
      400,
      "BAD_USER_INPUT",
      { field: "components[0].component" },
    ),
    validate(
      "400 for constructor as a component name",
      json([{ component: "constructor", version: "1.29" }]),
      400,
      "BAD_USER_INPUT",
      { field: "components[0].component" },
    ),
    validate(
      "400 for hasOwnProperty as a profile",
      json([kubelet], { profile: "hasOwnProperty" }),
      400,
      "BAD_USER_INPUT",
      { field: "profile" },
    ),
    {
      name: "404 for __proto__ as a component in the path",
      path: "/api/v1/components/__proto__",
      status: 404,
      code: "NOT_FOUND",
    },
    {
      name: "404 for constructor as a component in the path",
      path: "/api/v1/components/constructor",
      status: 404,
      code: "NOT_FOUND",
    },
    {
      name: "400 for __proto__[polluted]= on components",
      path: "/api/v1/components?__proto__[polluted]=yes",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for __proto__= on releases",
      path: "/api/v1/releases?__proto__=yes",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for constructor[prototype][polluted]= on the summary",
      path: "/api/v1/kb?constructor[prototype][polluted]=yes",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for __proto__.polluted= on API removals",
      path: "/api/v1/api-removals?__proto__.polluted=yes",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for __proto__= on an operation",
      method: "POST",
      path: "/api/v1/validate?__proto__[polluted]=yes",
      body: json([kubelet]),
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for __proto__ in a new record",
      method: "POST",
      path: "/api/v1/profiles",
      auth: "editor",
      body: '{"name": "evil", "description": "x", "sourceUrl": "https://kubernetes.io/", "__proto__": {"polluted": "yes"}}',
      status: 400,
      code: "BAD_USER_INPUT",
      message: /__proto__/,
    },
    {
      name: "422 for __proto__ as a file name in a JSON import",
      method: "POST",
      path: "/api/v1/kb/import",
      auth: "admin",
      body: '{"files": {"__proto__": "components: []", "constructor": "x: 1"}}',
      status: 422,
      code: "KB_INVALID",
      message: /__proto__: is not a knowledge-base file/,
    },
  );
  return cases;
}

const repeatedParameters: HostileCase[] = [
  {
    name: "400 for plane given twice",
    path: "/api/v1/components?plane=DATA&plane=CONTROL",
    status: 400,
    code: "BAD_USER_INPUT",
    message: /give it once/,
  },
  {
    name: "400 for component given twice",
    path: "/api/v1/ports?component=kubelet&component=etcd",
    status: 400,
    code: "BAD_USER_INPUT",
    message: /give it once/,
  },
  {
    name: "400 for profile given twice",
    path: "/api/v1/skew-rules?profile=strict&profile=upstream",
    status: 400,
    code: "BAD_USER_INPUT",
    message: /give it once/,
  },
  {
    name: "400 for from given twice",
    path: "/api/v1/api-removals?from=1.25&from=1.29",
    status: 400,
    code: "BAD_USER_INPUT",
    message: /give it once/,
  },
  {
    name: "400 for targetVersion given twice to the YAML scan",
    method: "POST",
    path: "/api/v1/scan?targetVersion=1.29&targetVersion=1.30",
    body: "a: 1\n",
    contentType: "application/yaml",
    status: 400,
    code: "BAD_USER_INPUT",
    message: /give it once/,
  },
  {
    name: "400 for limit given twice to the audit",
    path: "/api/v1/audit?limit=1&limit=2",
    auth: "admin",
    status: 400,
    code: "BAD_USER_INPUT",
    message: /give it once/,
  },
  {
    name: "400 for file given twice to the export",
    path: "/api/v1/kb/export?file=ports.yaml&file=links.yaml",
    status: 400,
    code: "BAD_USER_INPUT",
    message: /give it once/,
  },
];

function unknownParameters(): HostileCase[] {
  const cases: HostileCase[] = READ_ROUTES.map((route) => {
    // "limit" unless the route documents it (the fleet's lists page with it), then another name.
    const unknown = documentedParameters(route).includes("limit") ? "verbose" : "limit";
    return {
      name: `400 for an unknown parameter on GET ${route}`,
      path: `${route}?${unknown}=5`,
      status: 400,
      code: "BAD_USER_INPUT",
      message: new RegExp(`unknown query parameter "${unknown}"`),
    };
  });
  cases.push(
    {
      name: "400 for an unknown parameter on one component",
      path: "/api/v1/components/kubelet?verbose=1",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for an unknown parameter on one release",
      path: "/api/v1/releases/1.30?verbose=1",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for an unknown parameter on the proposals (which take limit)",
      path: "/api/v1/proposals?verbose=1",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter "verbose"/,
    },
    {
      name: "400 for an unknown parameter on the audit",
      path: "/api/v1/audit?verbose=1",
      auth: "admin",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for an unknown parameter on the export",
      path: "/api/v1/kb/export?format=json",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for an unknown parameter on Pluto's export",
      path: "/api/v1/kb/export/pluto?format=json",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for ?profile=strict on validate (the profile goes in the body)",
      method: "POST",
      path: "/api/v1/validate?profile=strict",
      body: json([kubelet]),
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter "profile"/,
    },
    {
      name: "400 for ?targetVersion= on a JSON upgrade plan",
      method: "POST",
      path: "/api/v1/upgrade-plan?targetVersion=1.32",
      body: { current: current([apiserver]), targetVersion: "1.31" },
      status: 400,
      code: "BAD_USER_INPUT",
      message: /unknown query parameter/,
    },
    {
      name: "400 for an unknown parameter next to the YAML fix's targetVersion",
      method: "POST",
      path: "/api/v1/fix?targetVersion=1.25&detail=full",
      body: "a: 1\n",
      contentType: "application/yaml",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /takes only targetVersion, fromVersion, allowLossy, fileName/,
    },
    {
      name: "400 for an unknown parameter next to the YAML scan's targetVersion",
      method: "POST",
      path: "/api/v1/scan?targetVersion=1.29&profile=strict",
      body: "a: 1\n",
      contentType: "application/yaml",
      status: 400,
      code: "BAD_USER_INPUT",
      message: /takes only targetVersion/,
    },
  );
  return cases;
}

const hugeQueries: HostileCase[] = [
  {
    name: "400 for a 15 000-character plane",
    path: `/api/v1/components?plane=${"A".repeat(15_000)}`,
    status: 400,
    code: "BAD_USER_INPUT",
    message: /at most 100 characters/,
  },
  {
    name: "400 for 1000 unknown parameters",
    path: `/api/v1/releases?${Array.from({ length: 1000 }, (_, index) => `p${index}=1`).join("&")}`,
    status: 400,
    code: "BAD_USER_INPUT",
    message: /unknown query parameter/,
  },
  {
    name: "400 for 1500 parameters (past the parser's key limit)",
    path: `/api/v1/kb?${Array.from({ length: 1500 }, (_, index) => `p${index}=1`).join("&")}`,
    status: 400,
    code: "BAD_USER_INPUT",
  },
  {
    name: "400 for a 10 000-character component filter",
    path: `/api/v1/ports?component=${"k".repeat(10_000)}`,
    status: 400,
    code: "BAD_USER_INPUT",
    message: /at most 100 characters/,
  },
];

function bogusAuthorization(): HostileCase[] {
  const headers: Array<[string, string, RegExp]> = [
    [
      "the Basic scheme with a password that is no token",
      "Basic dXNlcjpwYXNz",
      /not a kubecompat token/,
    ],
    ["the Basic scheme without a colon", "Basic dXNlcnBhc3M=", /Bearer <token>/],
    ["the Token scheme", "Token kc_abc", /Bearer <token>/],
    ["the Digest scheme", 'Digest username="x", response="y"', /Bearer <token>/],
    ["Bearer without a token", "Bearer", /Bearer <token>/],
    ["two tokens", "Bearer kc_a kc_b", /Bearer <token>/],
    ["Latin-1 garbage", "Bearer \u00ff\u00fe\u00e9", /not a kubecompat token/],
    ["a 10 kB token", `Bearer kc_${"A".repeat(10_240)}`, /not a kubecompat token/],
    ["a token one character short", `Bearer kc_${"A".repeat(42)}`, /not a kubecompat token/],
    ["a well-formed token nobody issued", `Bearer kc_${"A".repeat(43)}`, /unknown/],
    ["a JWT", "Bearer eyJhbGciOiJub25lIn0.eyJyb2xlIjoiYWRtaW4ifQ.", /not a kubecompat token/],
  ];
  const cases: HostileCase[] = headers.map(([what, header, message]) => ({
    name: `401 for ${what}`,
    path: "/api/v1/kb",
    auth: { header },
    status: 401,
    code: "UNAUTHENTICATED",
    message,
  }));
  cases.push(
    {
      name: "401 for a revoked token",
      path: "/api/v1/kb",
      auth: "revoked",
      status: 401,
      code: "UNAUTHENTICATED",
      message: /was revoked/,
    },
    {
      name: "401 for a revoked token on an edit",
      method: "DELETE",
      path: "/api/v1/ports/x?revision=1",
      auth: "revoked",
      status: 401,
      code: "UNAUTHENTICATED",
      message: /was revoked/,
    },
    {
      name: "401 for a bogus token on an operation",
      method: "POST",
      path: "/api/v1/validate",
      auth: { header: "Basic Og==" },
      body: json([kubelet]),
      status: 401,
      code: "UNAUTHENTICATED",
    },
    {
      name: "401 for no token on an edit",
      method: "DELETE",
      path: "/api/v1/ports/x?revision=1",
      status: 401,
      code: "UNAUTHENTICATED",
    },
    {
      name: "403 for a reader's token on an edit",
      method: "DELETE",
      path: "/api/v1/ports/x?revision=1",
      auth: "reader",
      status: 403,
      code: "FORBIDDEN",
    },
    {
      name: "403 for an editor's token on the import",
      method: "POST",
      path: "/api/v1/kb/import",
      auth: "editor",
      body: "ports: []\n",
      contentType: "application/yaml",
      status: 403,
      code: "FORBIDDEN",
      message: /admin role/,
    },
    {
      name: "401 for the import without a token, before its body is parsed",
      method: "POST",
      path: "/api/v1/kb/import",
      body: "[".repeat(1000),
      contentType: "application/yaml",
      status: 401,
      code: "UNAUTHENTICATED",
    },
  );
  return cases;
}

export const HTTP_CASES: Readonly<Record<string, readonly HostileCase[]>> = {
  "body size": bodyTooLarge(),
  "content types": [...wrongContentTypes(), ...contentTypes],
  "malformed JSON": [...malformedJsonOnEveryRoute(), ...malformedJson],
  "deep JSON": deepJson,
  "huge arrays": hugeArrays,
  "unicode and control characters": strangeCharacters(),
  "SQL-looking strings": sqlEverywhere(),
  "very long strings": longStrings,
  "path traversal": pathTraversal,
  "prototype pollution": prototypePollution(),
  "repeated query parameters": repeatedParameters,
  "unknown query parameters": unknownParameters(),
  "huge query strings": hugeQueries,
  "bogus Authorization": bogusAuthorization(),
};

assert.ok(POST_ROUTES.length >= 8, "the OpenAPI document lists the POST routes");
