/**
 * The hostile corpus of the GraphQL face: documents past the depth, alias,
 * cost, token and directive limits; batches; bodies too large, malformed or
 * of the wrong type; variables of the wrong type; unknown operations;
 * mutations without or with too weak a token; and the schema probing that
 * production hides.
 */
import { NASTY_TEXT, SQL, deepArrays, graphqlCase, nested, type HostileCase } from "./support.js";

const VALIDATION = "GRAPHQL_VALIDATION_FAILED";
const RELEASES = "{ releases { version } }";
const MUTATIONS = {
  createRecord: `mutation { createRecord(entity: PORTS, record: {component: "kubelet"}) { key } }`,
  updateRecord: `mutation { updateRecord(entity: RELEASES, key: "1.30", revision: 1, record: {version: "1.30"}) { key } }`,
  retireRecord: `mutation { retireRecord(entity: API_REMOVALS, key: "batch/v1beta1 CronJob", revision: 1) { key } }`,
  importKnowledgeBase: `mutation { importKnowledgeBase(bundle: "ports: []") { changed } }`,
};

function nestedSelection(levels: number): string {
  let selection = "name";
  for (let level = 0; level < levels; level += 1) selection = `inner { ${selection} }`;
  return selection;
}

const limits: HostileCase[] = [
  graphqlCase(
    "400 for a selection 23 levels deep",
    `{ components { ports { ${nestedSelection(20)} } } }`,
    {
      status: 400,
      code: VALIDATION,
      message: /depth limit of 12 exceeded/,
    },
  ),
  graphqlCase(
    "400 for depth hidden in a fragment",
    `{ components { ...Deep } } fragment Deep on Component { ports { ${nestedSelection(15)} } }`,
    { status: 400, code: VALIDATION, message: /depth limit of 12 exceeded/ },
  ),
  graphqlCase(
    "400 for 16 aliases, one over the limit",
    `{ ${Array.from({ length: 16 }, (_, index) => `a${index}: knowledgeBase { revision }`).join(" ")} }`,
    {
      status: 400,
      code: VALIDATION,
      message: /Aliases limit of 15 exceeded, found 16/,
    },
  ),
  // (__typename is on graphql-armor's allow list: aliasing it costs nothing.)
  graphqlCase(
    "400 for 300 aliases of a list",
    `{ ${Array.from({ length: 300 }, (_, index) => `a${index}: releases { version }`).join(" ")} }`,
    {
      status: 400,
      code: VALIDATION,
      message: /Aliases limit of 15 exceeded/,
    },
  ),
  graphqlCase(
    "400 for a document whose fragments cost more than 5000",
    `{ components { ${"...Ports ".repeat(30)} } } fragment Ports on Component { ports { ${"port ".repeat(200)} } }`,
    { status: 400, code: VALIDATION, message: /Cost limit of 5000 exceeded/ },
  ),
  graphqlCase(
    "400 for 3000 repeats of one field (too costly to validate)",
    `{ releases { ${"version ".repeat(3000)} } }`,
    {
      status: 400,
      code: VALIDATION,
      message: /too large or repetitive to validate/,
    },
  ),
  graphqlCase(
    "400 for a document of more than 4000 tokens",
    `{ releases { ${"version ".repeat(5000)} } }`,
    {
      status: 400,
      code: "GRAPHQL_PARSE_FAILED",
      message: /more that 4000 tokens/,
    },
  ),
  graphqlCase(
    "400 for 11 directives on one field",
    `{ releases { version ${"@include(if: true) ".repeat(11)} } }`,
    {
      status: 400,
      code: VALIDATION,
      message: /Directives limit of 10 exceeded/,
    },
  ),
  graphqlCase("400 for an unknown directive", `{ releases @evil { version } }`, {
    status: 400,
    code: VALIDATION,
    message: /Unknown directive "@evil"/,
  }),
  graphqlCase(
    "400 for a fragment that spreads itself",
    `{ releases { ...A } } fragment A on Release { ...B } fragment B on Release { ...A }`,
    {
      status: 400,
      code: VALIDATION,
      message: /within itself/,
    },
  ),
  graphqlCase(
    "400 for a subscription (the schema has none)",
    "subscription { releases { version } }",
    {
      status: 400,
      code: VALIDATION,
      message: /no subscription operations/,
    },
  ),
];

const transport: HostileCase[] = [
  {
    name: "400 for a batch of two operations",
    method: "POST",
    path: "/graphql",
    body: [{ query: RELEASES }, { query: RELEASES }],
    status: 400,
    code: "BAD_REQUEST",
    message: /batching/,
  },
  {
    name: "400 for a batch of 1000 operations",
    method: "POST",
    path: "/graphql",
    body: Array.from({ length: 1000 }, () => ({ query: RELEASES })),
    status: 400,
    code: "BAD_REQUEST",
    message: /batching/,
  },
  {
    name: "400 for an empty batch",
    method: "POST",
    path: "/graphql",
    body: [],
    status: 400,
    code: "BAD_REQUEST",
  },
  {
    name: "413 for a document larger than the body limit",
    method: "POST",
    path: "/graphql",
    body: () =>
      JSON.stringify({ query: RELEASES, variables: { padding: "x".repeat(12 * 1024 * 1024) } }),
    status: 413,
    code: "PAYLOAD_TOO_LARGE",
  },
  {
    name: "400 for malformed JSON",
    method: "POST",
    path: "/graphql",
    body: '{"query": "{ releases { version } }"',
    status: 400,
    code: "BAD_USER_INPUT",
    message: /not valid JSON/,
  },
  {
    name: "400 for a JSON string body",
    method: "POST",
    path: "/graphql",
    body: '"{ releases { version } }"',
    status: 400,
    code: "BAD_USER_INPUT",
    message: /not valid JSON/,
  },
  {
    name: "400 for variables nested 40 levels",
    method: "POST",
    path: "/graphql",
    body: { query: RELEASES, variables: { deep: nested(40) } },
    status: 400,
    code: "BAD_USER_INPUT",
    message: /nested more than 32/,
  },
  {
    name: "400 for a 100 000-deep [[[[...]]]] body",
    method: "POST",
    path: "/graphql",
    body: deepArrays(100_000),
    status: 400,
    code: "BAD_USER_INPUT",
    message: /nested more than 32/,
  },
  {
    name: "400 for text/plain (a CSRF-able type)",
    method: "POST",
    path: "/graphql",
    body: RELEASES,
    contentType: "text/plain",
    status: 400,
    code: "BAD_REQUEST",
    message: /Cross-Site Request Forgery/,
  },
  {
    name: "400 for a form post",
    method: "POST",
    path: "/graphql",
    body: `query=${encodeURIComponent(RELEASES)}`,
    contentType: "application/x-www-form-urlencoded",
    status: 400,
    code: "BAD_REQUEST",
  },
  {
    name: "400 for multipart/form-data",
    method: "POST",
    path: "/graphql",
    body: "--x\r\nContent-Disposition: form-data; name=query\r\n\r\n{ releases { version } }\r\n--x--\r\n",
    contentType: "multipart/form-data; boundary=x",
    status: 400,
    code: "BAD_REQUEST",
  },
  {
    name: "400 for a body without Content-Type",
    method: "POST",
    path: "/graphql",
    body: JSON.stringify({ query: RELEASES }),
    contentType: "none",
    status: 400,
    code: "BAD_REQUEST",
  },
  {
    name: "415 for an unknown charset",
    method: "POST",
    path: "/graphql",
    body: JSON.stringify({ query: RELEASES }),
    contentType: "application/json; charset=klingon",
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
  },
  {
    name: "405 for a mutation over GET",
    path: `/graphql?query=${encodeURIComponent(MUTATIONS.retireRecord)}`,
    headers: { "apollo-require-preflight": "true", Accept: "application/json" },
    status: 405,
    code: "BAD_REQUEST",
    message: /GET requests only support query/,
  },
  {
    name: "400 for a GET without a CSRF preflight header",
    path: `/graphql?query=${encodeURIComponent(RELEASES)}`,
    headers: { Accept: "application/json" },
    status: 400,
    code: "BAD_REQUEST",
    message: /Cross-Site Request Forgery/,
  },
  {
    name: "200 with PERSISTED_QUERY_NOT_FOUND for an unknown persisted query",
    method: "POST",
    path: "/graphql",
    body: { extensions: { persistedQuery: { version: 1, sha256Hash: "0".repeat(64) } } },
    status: 200,
    code: "PERSISTED_QUERY_NOT_FOUND",
  },
];

const documents: HostileCase[] = [
  {
    name: "400 for a query that is not a string",
    method: "POST",
    path: "/graphql",
    body: { query: 5 },
    status: 400,
    code: "BAD_REQUEST",
    message: /must be strings/,
  },
  graphqlCase("400 for an empty query", "", { status: 400, code: "BAD_REQUEST" }),
  graphqlCase("400 for a syntax error", "{ releases { version }", {
    status: 400,
    code: "GRAPHQL_PARSE_FAILED",
  }),
  graphqlCase("400 for NUL in the document", "{ releases\u0000 { version } }", {
    status: 400,
    code: "GRAPHQL_PARSE_FAILED",
    message: /U\+0000/,
  }),
  graphqlCase(
    `400 for a lone surrogate in a string literal`,
    `{ release(version: "${NASTY_TEXT.loneSurrogate}") { version } }`,
    { status: 400, code: "GRAPHQL_PARSE_FAILED", message: /U\+D800/ },
  ),
  graphqlCase("400 for an unknown field", "{ releasez { version } }", {
    status: 400,
    code: VALIDATION,
    message: /Cannot query field "releasez"/,
  }),
  graphqlCase(
    "400 for an unknown operation name",
    "query A { releases { version } }",
    { status: 400, code: "OPERATION_RESOLUTION_FAILURE", message: /Unknown operation named "B"/ },
    undefined,
    "B",
  ),
  graphqlCase(
    "400 for two operations and no name",
    "query A { releases { version } } query B { profiles { name } }",
    { status: 400, code: "OPERATION_RESOLUTION_FAILURE", message: /Must provide operation name/ },
  ),
  {
    name: "400 for an operation name that is not a string",
    method: "POST",
    path: "/graphql",
    body: { query: RELEASES, operationName: 5 },
    status: 400,
    code: "BAD_REQUEST",
  },
  {
    name: "400 for variables given as a string",
    method: "POST",
    path: "/graphql",
    body: { query: RELEASES, variables: '{"a": 1}' },
    status: 400,
    code: "BAD_REQUEST",
    message: /should be provided as an object/,
  },
  {
    name: "400 for variables given as a list",
    method: "POST",
    path: "/graphql",
    body: { query: RELEASES, variables: [1, 2] },
    status: 400,
    code: "BAD_REQUEST",
  },
  graphqlCase(
    "400 for an Int where a String is declared",
    "query($v: String!) { release(version: $v) { version } }",
    { status: 400, code: "BAD_USER_INPUT", message: /String cannot represent a non string value/ },
    { v: 130 },
  ),
  graphqlCase(
    "400 for an object where a list is declared",
    "query($p: ClusterPlanInput!) { validateCluster(plan: $p) { ok } }",
    { status: 400, code: "BAD_USER_INPUT" },
    { p: { components: { component: 5 } } },
  ),
  graphqlCase(
    "400 for a required variable left out",
    "query($v: String!) { release(version: $v) { version } }",
    { status: 400, code: "BAD_USER_INPUT", message: /was not provided/ },
    {},
  ),
  graphqlCase(
    "400 for an unknown field in an input object",
    "query($p: ClusterPlanInput!) { validateCluster(plan: $p) { ok } }",
    { status: 400, code: "BAD_USER_INPUT", message: /"evil" is not defined/ },
    {
      p: { components: [{ component: "kubelet", version: "1.29", evil: true }] },
    },
  ),
  graphqlCase(
    "400 for __proto__ in an input object",
    "query($p: ClusterPlanInput!) { validateCluster(plan: $p) { ok } }",
    { status: 400, code: "BAD_USER_INPUT", message: /__proto__/ },
    {
      p: JSON.parse(
        '{"components": [{"component": "kubelet", "version": "1.29", "__proto__": {"polluted": "yes"}}]}',
      ) as unknown,
    },
  ),
  graphqlCase(
    "400 for a string where a JSONObject record is declared",
    `mutation { createRecord(entity: PORTS, record: "ports") { key } }`,
    { status: 400, code: VALIDATION, message: /record must be a JSON object/ },
  ),
];

const field = (name: string) => ({ field: name });
const domain: HostileCase[] = [
  graphqlCase(
    "BAD_USER_INPUT for SQL in a component name",
    `query($p: ClusterPlanInput!) { validateCluster(plan: $p) { ok } }`,
    { status: 200, code: "BAD_USER_INPUT", ...field("plan.components[0].component") },
    {
      p: { components: [{ component: SQL, version: "1.29" }] },
    },
  ),
  graphqlCase(
    "BAD_USER_INPUT for SQL in a profile",
    `{ skewRules(profile: ${JSON.stringify(SQL)}) { id } }`,
    { status: 200, code: "BAD_USER_INPUT", ...field("profile") },
  ),
  graphqlCase(
    "BAD_USER_INPUT for 1001 components",
    `query($p: ClusterPlanInput!) { validateCluster(plan: $p) { ok } }`,
    { status: 200, code: "BAD_USER_INPUT", message: /at most 1000/ },
    {
      p: {
        components: Array.from({ length: 1001 }, (_, index) => ({
          component: "kubelet",
          version: "1.29",
          instance: `p${index}`,
        })),
      },
    },
  ),
  graphqlCase(
    "BAD_USER_INPUT for an upgrade target 9970 minors away",
    `{ planUpgrade(current: {components: [{component: "apiserver", version: "1.29"}]}, targetVersion: "1.9999") { ok } }`,
    {
      status: 200,
      code: "BAD_USER_INPUT",
      ...field("targetVersion"),
    },
  ),
  graphqlCase(
    "BAD_USER_INPUT for NUL in a rollback's component",
    `query($c: String!) { checkRollback(current: {components: [{component: "kubelet", version: "1.29"}]}, component: $c, toVersion: "1.28") { ok } }`,
    {
      status: 200,
      code: "BAD_USER_INPUT",
      ...field("component"),
    },
    { c: NASTY_TEXT.nul },
  ),
  graphqlCase("BAD_USER_INPUT for ../ as a release", `{ release(version: "../") { version } }`, {
    status: 200,
    code: "BAD_USER_INPUT",
    ...field("version"),
  }),
  graphqlCase(
    "BAD_USER_INPUT for a 1 MB version string",
    `query($v: String!) { release(version: $v) { version } }`,
    { status: 200, code: "BAD_USER_INPUT", message: /longer than 64/ },
    { v: "1".repeat(1_000_000) },
  ),
  graphqlCase(
    "BAD_USER_INPUT for a right-to-left override in an instance",
    `query($p: ClusterPlanInput!) { validateCluster(plan: $p) { ok } }`,
    { status: 200, code: "BAD_USER_INPUT", ...field("plan.components[0].instance") },
    {
      p: { components: [{ component: "kubelet", version: "1.29", instance: "pool\u202ea" }] },
    },
  ),
];

const withoutAuth = Object.entries(MUTATIONS).map(([name, mutation]) =>
  graphqlCase(`UNAUTHENTICATED for ${name} without a token`, mutation, {
    status: 200,
    code: "UNAUTHENTICATED",
    message: /API token/,
  }),
);
const withReader = Object.entries(MUTATIONS).map(([name, mutation]) =>
  graphqlCase(`FORBIDDEN for ${name} with a reader's token`, mutation, {
    status: 200,
    code: "FORBIDDEN",
    auth: "reader",
    message: /needs the (editor|admin) role/,
  }),
);
const auth: HostileCase[] = [
  ...withoutAuth,
  ...withReader,
  graphqlCase(
    "FORBIDDEN for importKnowledgeBase with an editor's token",
    MUTATIONS.importKnowledgeBase,
    { status: 200, code: "FORBIDDEN", auth: "editor", message: /admin role/ },
  ),
  graphqlCase(
    "FORBIDDEN for importKnowledgeBase with an editor's token, before the bundle is parsed",
    `mutation { importKnowledgeBase(bundle: ${JSON.stringify("[".repeat(5000))}) { changed } }`,
    {
      status: 200,
      code: "FORBIDDEN",
      auth: "editor",
    },
  ),
  graphqlCase("UNAUTHENTICATED for the audit log without a token", "{ auditLog { id } }", {
    status: 200,
    code: "UNAUTHENTICATED",
  }),
  graphqlCase("FORBIDDEN for the audit log with an editor's token", "{ auditLog { id } }", {
    status: 200,
    code: "FORBIDDEN",
    auth: "editor",
  }),
  graphqlCase("401 for a mutation with a token nobody issued", MUTATIONS.retireRecord, {
    status: 401,
    code: "UNAUTHENTICATED",
    auth: { header: `Bearer kc_${"x".repeat(43)}` },
    message: /unknown/,
  }),
  graphqlCase("401 for a mutation with the Basic scheme", MUTATIONS.retireRecord, {
    status: 401,
    code: "UNAUTHENTICATED",
    auth: { header: "Basic YWRtaW46YWRtaW4=" },
  }),
  graphqlCase("401 for a mutation with a revoked token", MUTATIONS.retireRecord, {
    status: 401,
    code: "UNAUTHENTICATED",
    auth: "revoked",
    message: /revoked/,
  }),
  graphqlCase("401 for a query with a 10 kB token", RELEASES, {
    status: 401,
    code: "UNAUTHENTICATED",
    auth: { header: `Bearer ${"k".repeat(10_240)}` },
  }),
];

/** Schema probing through typos: development suggests names, production must not. */
export const SUGGESTION = /Did you mean|Suggestion hidden/;
export const PROBES: ReadonlyArray<{
  readonly what: string;
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly code: string;
}> = [
  { what: "a misspelt field", query: "{ releasez { version } }", code: VALIDATION },
  {
    what: "a misspelt argument",
    query: '{ release(versio: "1.30") { version } }',
    code: VALIDATION,
  },
  {
    what: "a misspelt type",
    query: "query($p: ClusterPlanInputt!) { validateCluster(plan: $p) { ok } }",
    code: VALIDATION,
  },
  {
    what: "a misspelt input field",
    query:
      '{ validateCluster(plan: {components: [{componen: "kubelet", version: "1.29"}]}) { ok } }',
    code: VALIDATION,
  },
  { what: "a misspelt enum value", query: "{ components(plane: DAT) { name } }", code: VALIDATION },
  {
    what: "a misspelt enum value in a variable",
    query: "query($p: Plane) { components(plane: $p) { name } }",
    variables: { p: "DAT" },
    code: "BAD_USER_INPUT",
  },
  {
    what: "a misspelt field of an input variable",
    query: "query($p: ClusterPlanInput!) { validateCluster(plan: $p) { ok } }",
    variables: { p: { components: [{ componen: "kubelet", version: "1.29" }] } },
    code: "BAD_USER_INPUT",
  },
];

export const GRAPHQL_CASES: Readonly<Record<string, readonly HostileCase[]>> = {
  "document limits": limits,
  transport,
  "documents and variables": documents,
  "bad input to the operations": domain,
  "mutations and tokens": auth,
};
