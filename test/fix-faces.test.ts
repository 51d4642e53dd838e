/**
 * `fix` over every face, against one server listening on a port: the same fixture (test/fixtures/fix/) asked
 * over REST (JSON and raw YAML), GraphQL, MCP and the CLI (the real executable, on temporary copies) gives the
 * same rewritten manifests, the same status per object and the same scan after; the REST answer is the
 * domain's own and parses to itself with the schema the OpenAPI document names. The CLI's --write leaves each
 * file byte for byte its hand-converted expected file and never touches a file with nothing to change; its
 * SARIF fixes, applied to the original text, give the fixed text. Bad input gets the same code on each face.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import draft04 from "ajv-draft-04";
import formats from "ajv-formats";
import type { z } from "zod";
import { fixManifests } from "../src/domain/manifest-fix.js";
import { buildRegistry } from "../src/rest/openapi.js";
import { kubecompat } from "./support/cli-process.js";
import { REPO_ROOT, startListeningRuntime } from "./support/runtime.js";
import { kbSnapshot } from "./support/snapshot.js";

const FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "fix");
const read = (file: string): string => fs.readFileSync(path.join(FIXTURES, file), "utf8");
const expectedOf = (file: string): string => file.replace(/\.(yaml|json)$/, ".expected.$1");

/** Fixtures with the target they are fixed for; the EndpointSlice's second object is lossy to convert. */
const CASES: ReadonlyArray<{ file: string; target: string; allowLossy: boolean }> = [
  { file: "cronjob-v1beta1.yaml", target: "1.25", allowLossy: false },
  { file: "ingress-extensions-v1beta1.yaml", target: "1.22", allowLossy: false },
  { file: "kubectl-get-ingress.json", target: "1.22", allowLossy: false },
  { file: "endpointslice-v1beta1.yaml", target: "1.25", allowLossy: false },
  { file: "endpointslice-v1beta1.yaml", target: "1.25", allowLossy: true },
];

interface ObjectFix {
  status: string;
  apiVersion: string;
  kind: string;
  line: number;
  reason: string | null;
  lossy: string[];
}
interface FixAnswer {
  manifests: string;
  changed: boolean;
  diff: string;
  objects: ObjectFix[];
  after: { status: string };
}
type ErrorBody = { error: { code: string; details?: Array<{ field?: string }> } };

/** What every face must agree on. */
const agreed = (answer: FixAnswer) => ({
  manifests: answer.manifests,
  changed: answer.changed,
  objects: answer.objects.map((fix) => [fix.kind, fix.line, fix.status, fix.reason]),
  after: answer.after.status,
});

const FIX_QUERY = `query Fix($manifests: String!, $targetVersion: String!, $allowLossy: Boolean, $fileName: String) {
  fixManifests(manifests: $manifests, targetVersion: $targetVersion, allowLossy: $allowLossy, fileName: $fileName) {
    targetVersion changed manifests diff
    objects { status apiVersion kind name namespace documentIndex line source toApiVersion reason lossy sourceUrls notes
      changes { action field to value note lossy }
      replacements { startLine startColumn endLine endColumn deletedText insertedText }
      finding { code phase severity line replacement message } }
    after { status targetVersion findings { code line } }
  }
}`;

const require = createRequire(import.meta.url);
const sarifSchema = require("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json") as object;
const ajv = new draft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
formats.default(ajv);
const validateSarif = ajv.compile(sarifSchema);

/** `value` cut to the fields `shape` has (a GraphQL selection of it), lists item by item. */
function projected(shape: unknown, value: unknown): unknown {
  if (Array.isArray(shape) && Array.isArray(value))
    return value.map((item, index) => projected(shape[index], item));
  if (shape === null || typeof shape !== "object" || value === null || typeof value !== "object")
    return value;
  return Object.fromEntries(
    Object.keys(shape).map((key) => [
      key,
      projected((shape as Record<string, unknown>)[key], (value as Record<string, unknown>)[key]),
    ]),
  );
}

/** The documented 200 answer of POST /api/v1/fix. */
function documentedAnswer(): z.ZodType {
  const route = buildRegistry().definitions.flatMap((entry) =>
    entry.type === "route" && entry.route.path === "/api/v1/fix" ? [entry.route] : [],
  )[0];
  assert.ok(route, "POST /api/v1/fix is documented");
  const media = (route.responses[200] as { content: Record<string, { schema: z.ZodType }> })
    .content["application/json"];
  return media!.schema;
}

/** SARIF replacements applied to the text they were made for, last first, so earlier positions hold. */
function applied(
  text: string,
  replacements: ReadonlyArray<{
    deletedRegion: { startLine: number; startColumn: number; endLine: number; endColumn: number };
    insertedContent: { text: string };
  }>,
): string {
  const starts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  const offset = (line: number, column: number): number => starts[line - 1]! + column - 1;
  const edits = replacements
    .map(({ deletedRegion: r, insertedContent }) => ({
      start: offset(r.startLine, r.startColumn),
      end: offset(r.endLine, r.endColumn),
      text: insertedContent.text,
    }))
    .sort((a, b) => b.start - a.start);
  edits.forEach((edit, index) =>
    assert.ok(index === 0 || edit.end <= edits[index - 1]!.start, "regions do not overlap"),
  );
  return edits.reduce(
    (result, edit) => result.slice(0, edit.start) + edit.text + result.slice(edit.end),
    text,
  );
}

describe("fix over REST, GraphQL, MCP and the CLI", () => {
  let url: string;
  let stop: () => Promise<void>;
  let mcp: Client;
  let dir: string;
  const cli = (args: readonly string[], options: { stdin?: string } = {}) =>
    kubecompat(["--server", url, ...args], options);

  before(async () => {
    const listening = await startListeningRuntime({ inMemory: true });
    url = listening.url;
    stop = () => listening.close();
    mcp = new Client({ name: "fix-faces-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-fix-"));
  });
  after(async () => {
    await mcp.close();
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function rest(body: unknown, query = "", contentType = "application/json") {
    const response = await fetch(`${url}/api/v1/fix${query}`, {
      method: "POST",
      headers: { "content-type": contentType },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  }

  async function graphql(variables: Record<string, unknown>) {
    const response = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: FIX_QUERY, variables }),
    });
    return (await response.json()) as {
      data: { fixManifests: FixAnswer } | null;
      errors?: Array<{ extensions: { code: string; field?: string } }>;
    };
  }

  async function tool(args: Record<string, unknown>) {
    return (await mcp.callTool({ name: "fix_manifests", arguments: args })) as {
      structuredContent: unknown;
      isError?: boolean;
    };
  }

  for (const { file, target, allowLossy } of CASES) {
    it(`${file} at ${target}${allowLossy ? " with allowLossy" : ""}: every face gives the same fix`, async () => {
      const manifests = read(file);
      const question = { manifests, targetVersion: target, allowLossy, fileName: file };
      const json = await rest(question);
      assert.equal(json.status, 200, JSON.stringify(json.body));
      const answer = json.body as FixAnswer;
      const domain = fixManifests(await kbSnapshot(), manifests, target, {
        allowLossy,
        fileName: file,
      });
      assert.deepEqual(
        agreed(answer),
        agreed(domain as unknown as FixAnswer),
        "REST answers the domain's fix",
      );
      assert.equal(answer.diff, domain.diff);
      const parsed = documentedAnswer().safeParse(answer);
      assert.ok(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3)));
      assert.deepEqual(parsed.data, answer, "no field the OpenAPI document does not name");
      assert.ok(answer.objects.length > 0 && answer.changed);
      const everyObjectFixed = answer.objects.every((fix) => fix.status === "FIXED");
      assert.equal(everyObjectFixed, answer.after.status !== "UNSUPPORTED");
      if (everyObjectFixed) assert.equal(answer.manifests, read(expectedOf(file)));

      const yaml = await rest(
        manifests,
        `?targetVersion=${target}&allowLossy=${allowLossy}&fileName=${file}`,
        "application/yaml",
      );
      assert.deepEqual(yaml, json, "raw YAML with the rest in the query: the same answer");

      const gql = await graphql(question);
      assert.equal(gql.errors, undefined, JSON.stringify(gql.errors));
      const viaGraphql = gql.data!.fixManifests;
      assert.deepEqual(agreed(viaGraphql), agreed(answer));
      assert.deepEqual(viaGraphql, projected(viaGraphql, answer), "REST's answer, field for field");

      const viaMcp = await tool(question);
      assert.notEqual(viaMcp.isError, true);
      assert.deepEqual(viaMcp.structuredContent, answer, "MCP answers REST's answer whole");

      const copy = path.join(dir, `json-${allowLossy}-${file}`);
      fs.writeFileSync(copy, manifests);
      const run = await cli([
        "fix",
        "--to",
        target,
        ...(allowLossy ? ["--allow-lossy"] : []),
        copy,
        "-o",
        "json",
      ]);
      assert.equal(run.code, 1, run.stderr);
      const printed = JSON.parse(run.stdout) as {
        files: Array<FixAnswer & { file: string; written: boolean }>;
      };
      assert.equal(printed.files.length, 1);
      assert.deepEqual(agreed(printed.files[0]!), agreed(answer));
      assert.equal(printed.files[0]!.written, false);
      assert.equal(
        fs.readFileSync(copy, "utf8"),
        manifests,
        "without --write the file is left alone",
      );
    });
  }

  it("the CLI prints each file's diff, then writes the fixed files in place and leaves the others alone", async () => {
    const folder = path.join(dir, "repo");
    fs.mkdirSync(folder);
    const cron = path.join(folder, "cron.yaml");
    const slices = path.join(folder, "slices.yaml");
    const clean = path.join(folder, "clean.yaml");
    fs.writeFileSync(cron, read("cronjob-v1beta1.yaml"));
    fs.writeFileSync(slices, read("endpointslice-v1beta1.yaml"));
    fs.writeFileSync(clean, read("cronjob-v1beta1.expected.yaml"));
    const untouched = fs.statSync(clean);

    const diff = await cli(["fix", "--to", "1.25", folder]);
    assert.equal(diff.code, 1, diff.stderr);
    const served = (
      await rest({ manifests: read("cronjob-v1beta1.yaml"), targetVersion: "1.25", fileName: cron })
    ).body as FixAnswer;
    assert.ok(
      diff.stdout.includes(served.diff),
      "the server's diff, labelled with the file's path",
    );
    assert.match(diff.stdout, new RegExp(`--- ${slices.replace(/[.]/g, "\\.")}`));
    assert.match(
      diff.stdout,
      /slices\.yaml:41 EndpointSlice shop\/orders-db-2 .*not fixed: the conversion loses information/,
    );
    assert.doesNotMatch(diff.stdout, /clean\.yaml/, "a file with nothing to fix has no diff");
    assert.equal(fs.readFileSync(cron, "utf8"), read("cronjob-v1beta1.yaml"));

    const lossy = await cli(["fix", "--to", "1.25", "--allow-lossy", "--write", folder]);
    assert.equal(lossy.code, 1, lossy.stderr);
    assert.match(lossy.stdout, /cron\.yaml: written/);
    assert.match(lossy.stdout, /lost: endpoints\[0\]\.topology: /);
    assert.equal(fs.readFileSync(cron, "utf8"), read("cronjob-v1beta1.expected.yaml"));
    assert.equal(fs.readFileSync(slices, "utf8"), read("endpointslice-v1beta1.expected.yaml"));
    const now = fs.statSync(clean);
    assert.deepEqual(
      [now.ino, now.mtimeMs],
      [untouched.ino, untouched.mtimeMs],
      "clean.yaml untouched",
    );
    assert.deepEqual(
      fs.readdirSync(folder).sort(),
      ["clean.yaml", "cron.yaml", "slices.yaml"],
      "no temporary file left",
    );

    const written = fs.statSync(cron);
    const again = await cli(["fix", "--to", "1.25", "--allow-lossy", "--write", folder]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /Nothing to fix for 1\.25 in 3 files/);
    assert.equal(fs.statSync(cron).mtimeMs, written.mtimeMs, "a fixed file is not written again");

    const stdin = await cli(["fix", "--to", "1.25", "--write", "-"], {
      stdin: read("cronjob-v1beta1.yaml"),
    });
    assert.equal(stdin.code, 1, stdin.stderr);
    assert.equal(
      stdin.stdout,
      read("cronjob-v1beta1.expected.yaml"),
      "stdin's fixed text alone on stdout",
    );
    assert.match(
      stdin.stderr,
      /<stdin>:2 CronJob reporting\/nightly-report batch\/v1beta1 → batch\/v1: fixed/,
    );
    const mixed = await cli(["fix", "--to", "1.25", "--write", "-", cron], { stdin: "" });
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /stdin \(-\) cannot be written back/);
  });

  it("--offline fixes as the server does", async () => {
    const copy = path.join(dir, "offline-ingress.yaml");
    fs.writeFileSync(copy, read("ingress-extensions-v1beta1.yaml"));
    const run = await kubecompat(["--offline", "fix", "--to", "1.22", copy, "-o", "json"]);
    assert.equal(run.code, 1, run.stderr);
    const offline = (JSON.parse(run.stdout) as { files: FixAnswer[] }).files[0]!;
    const served = (
      await rest({ manifests: read("ingress-extensions-v1beta1.yaml"), targetVersion: "1.22" })
    ).body as FixAnswer;
    assert.deepEqual(agreed(offline), agreed(served));
  });

  it("writes valid SARIF whose fixes, applied to the original text, give the fixed text", async () => {
    for (const { file, target } of [
      { file: "ingress-extensions-v1beta1.yaml", target: "1.22" },
      { file: "endpointslice-v1beta1.yaml", target: "1.25" },
    ]) {
      const copy = path.join(dir, `sarif-${file}`);
      fs.writeFileSync(copy, read(file));
      const run = await cli(["fix", "--to", target, copy, "-o", "sarif"]);
      assert.equal(run.code, 1, run.stderr);
      const log = JSON.parse(run.stdout) as {
        runs: Array<{
          results: Array<{
            ruleId: string;
            level: string;
            message: { text: string };
            locations: Array<{
              physicalLocation: {
                artifactLocation: { uri: string };
                region: { startLine: number };
              };
            }>;
            fixes?: Array<{
              description: { text: string };
              artifactChanges: Array<{
                artifactLocation: { uri: string };
                replacements: Parameters<typeof applied>[1];
              }>;
            }>;
          }>;
        }>;
      };
      assert.equal(validateSarif(log), true, JSON.stringify(validateSarif.errors?.slice(0, 5)));
      const served = (await rest({ manifests: read(file), targetVersion: target }))
        .body as FixAnswer;
      const { results } = log.runs[0]!;
      assert.deepEqual(
        results.map((result) => [
          result.ruleId,
          result.level,
          result.locations[0]!.physicalLocation.region.startLine,
          result.fixes !== undefined,
        ]),
        served.objects.map((fix) => ["API_REMOVED", "error", fix.line, fix.status === "FIXED"]),
      );
      for (const result of results) {
        assert.ok(
          result.locations[0]!.physicalLocation.artifactLocation.uri.endsWith(`sarif-${file}`),
        );
        if (result.fixes === undefined) assert.match(result.message.text, /Not fixed: /);
        for (const fix of result.fixes ?? [])
          assert.equal(
            fix.artifactChanges[0]!.artifactLocation.uri,
            result.locations[0]!.physicalLocation.artifactLocation.uri,
          );
      }
      const replacements = results.flatMap((result) =>
        (result.fixes ?? []).flatMap((fix) =>
          fix.artifactChanges.flatMap((change) => change.replacements),
        ),
      );
      assert.equal(applied(read(file), replacements), served.manifests);
    }
    assert.equal(
      applied(read("ingress-extensions-v1beta1.yaml"), []),
      read("ingress-extensions-v1beta1.yaml"),
      "no replacement, no change: the text above changed because of the fixes",
    );
  });

  it("says bad input with the same code on every face", async () => {
    const manifests = read("cronjob-v1beta1.yaml");
    for (const [question, field] of [
      [{ manifests, targetVersion: "1.3" }, "targetVersion"],
      [{ manifests: 5, targetVersion: "1.25" }, "manifests"],
    ] as const) {
      const answer = await rest(question);
      assert.equal(answer.status, 400);
      const body = answer.body as ErrorBody;
      assert.equal(body.error.code, "BAD_USER_INPUT");
      assert.equal(body.error.details?.[0]?.field, field);
      const gql = await graphql(question);
      assert.ok(
        gql.data == null,
        "no data: a variable of the wrong type is refused before the resolver",
      );
      assert.equal(gql.errors?.[0]?.extensions.code, "BAD_USER_INPUT", JSON.stringify(gql.errors));
      const viaMcp = await tool(question);
      assert.equal(viaMcp.isError, true);
      assert.deepEqual(viaMcp.structuredContent, body, "MCP says REST's error");
    }
    const copy = path.join(dir, "bad-target.yaml");
    fs.writeFileSync(copy, manifests);
    const run = await cli(["fix", "--to", "1.3", copy]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /targetVersion "1\.3" is Kubernetes 1\.3/);
    assert.equal(fs.readFileSync(copy, "utf8"), manifests);
    const usage = await cli(["fix", copy]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /needs the target version: --to VERSION/);
  });
});
