/**
 * The Pluto export loads in Pluto. Pluto cannot run here (a Go binary, no internet), so its loading of
 * `--additional-versions` is followed rule by rule from its code (FairwindsOps/pluto v5.24.0):
 *
 * - api.UnMarshalVersions: the file is YAML of a VersionFile, `deprecated-versions` a list of Version
 *   (version, kind, deprecated-in, removed-in, replacement-api, replacement-available-in, component).
 * - api.CombineAdditionalVersions / isDuplicate: any entry with the kind and version of a built-in one
 *   fails the whole run ("duplicate cannot be added to defaults: KIND VERSION").
 * - cmd/root.go: additional target-versions never replace a built-in component's; every component in the
 *   combined list needs a target; every target is semver with a leading v (golang.org/x/mod/semver).
 * - Version.isDeprecatedIn / isRemovedIn: semver.Compare(target, deprecated-in / removed-in) >= 0, an empty
 *   field meaning never.
 *
 * The built-in list is test/fixtures/pluto/list-versions.json, written in the format `pluto list-versions
 * -o json` prints (json.Marshal of a VersionFile, one line) with entries of Pluto's own list.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { parse } from "yaml";
import { startTestRuntime, type TestRuntime } from "./support/runtime.js";

const LIST_VERSIONS = fs.readFileSync(
  path.join(import.meta.dirname, "fixtures", "pluto", "list-versions.json"),
  "utf8",
);

interface PlutoVersion {
  version: string;
  kind: string;
  "deprecated-in": string;
  "removed-in": string;
  "replacement-api": string;
  "replacement-available-in": string;
  component: string;
}
interface VersionFile {
  "deprecated-versions": PlutoVersion[];
  "target-versions"?: Record<string, string>;
}

/** golang.org/x/mod/semver.IsValid for the forms Pluto's files use (vMAJOR[.MINOR[.PATCH]]). */
const isSemver = (value: string): boolean => /^v(0|[1-9]\d*)(\.(0|[1-9]\d*)){0,2}$/.test(value);
const compare = (a: string, b: string): number => {
  const parts = (value: string) => value.slice(1).split(".").map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let index = 0; index < 3; index += 1)
    if ((x[index] ?? 0) !== (y[index] ?? 0)) return (x[index] ?? 0) - (y[index] ?? 0);
  return 0;
};

/** Pluto's loading of a built-in list plus an additional file; throws Pluto's own error where it would fail. */
function plutoLoads(
  builtIn: VersionFile,
  additionalText: string,
): { versions: PlutoVersion[]; targets: Record<string, string> } {
  const additional = parse(additionalText) as VersionFile;
  assert.ok(
    Array.isArray(additional["deprecated-versions"]),
    "UnMarshalVersions: deprecated-versions is a list",
  );
  for (const entry of additional["deprecated-versions"]) {
    for (const field of [
      "version",
      "kind",
      "deprecated-in",
      "removed-in",
      "replacement-api",
      "replacement-available-in",
      "component",
    ] as const) {
      assert.equal(
        typeof entry[field],
        "string",
        `${entry.kind} ${entry.version}: ${field} unmarshals into a Go string`,
      );
    }
    if (
      builtIn["deprecated-versions"].some(
        (known) => known.kind === entry.kind && known.version === entry.version,
      )
    ) {
      throw new Error(`duplicate cannot be added to defaults: ${entry.kind} ${entry.version}`);
    }
  }
  const versions = [...builtIn["deprecated-versions"], ...additional["deprecated-versions"]];
  const targets = { ...builtIn["target-versions"] };
  for (const [component, version] of Object.entries(additional["target-versions"] ?? {}))
    if (!(component in targets)) targets[component] = version;
  for (const [component, version] of Object.entries(targets)) {
    if (!isSemver(version))
      throw new Error(
        `you must use valid semver for all target versions with a leading 'v' - got ${component} ${version}`,
      );
  }
  for (const entry of versions) {
    if (!(entry.component in targets))
      throw new Error(
        `you must pass a targetVersion for every component in the list - missing component: ${entry.component}`,
      );
  }
  return { versions, targets };
}

describe("the Pluto export", () => {
  let runtime: TestRuntime;
  const builtIn = JSON.parse(LIST_VERSIONS) as VersionFile;
  before(async () => {
    runtime = await startTestRuntime();
  });
  after(async () => {
    await runtime.close();
  });

  it("given `pluto list-versions -o json`, writes only what Pluto lacks, and Pluto loads it", async () => {
    const response = await request(runtime.app)
      .post("/api/v1/kb/export/pluto")
      .set("Content-Type", "application/json")
      .send(LIST_VERSIONS)
      .expect(200);
    assert.match(response.headers["content-type"] ?? "", /yaml/);
    const loaded = plutoLoads(builtIn, response.text);
    const file = parse(response.text) as VersionFile;
    const removals = (await request(runtime.app).get("/api/v1/api-removals").expect(200)).body
      .items as Array<{ apiVersion: string; kind: string }>;
    const ours = new Set(removals.map((removal) => `${removal.kind} ${removal.apiVersion}`));
    const builtInOurs = builtIn["deprecated-versions"].filter((entry) =>
      ours.has(`${entry.kind} ${entry.version}`),
    ).length;
    assert.equal(
      file["deprecated-versions"].length,
      ours.size - builtInOurs,
      "every removal Pluto lacks, each once",
    );
    assert.equal(response.headers["x-kubecompat-pluto-left-out"], String(builtInOurs));
    assert.equal(
      file["target-versions"],
      undefined,
      "Pluto keeps its own k8s target: none is written",
    );
    for (const entry of file["deprecated-versions"]) {
      for (const field of ["deprecated-in", "removed-in", "replacement-available-in"] as const) {
        assert.ok(
          entry[field] === "" || isSemver(entry[field]),
          `${entry.kind} ${entry.version} ${field} "${entry[field]}" is semver with a leading v`,
        );
      }
      assert.notEqual(
        entry["deprecated-in"],
        "",
        `${entry.kind} ${entry.version}: an empty deprecated-in would read as never deprecated`,
      );
    }
    // Pluto then judges our entries as its own: batch/v2alpha1 CronJob is removed at -t k8s=v1.25.0.
    const cronJob = loaded.versions.find(
      (entry) => entry.kind === "CronJob" && entry.version === "batch/v2alpha1",
    );
    assert.ok(cronJob, "an entry Pluto lacks is added");
    assert.ok(compare("v1.25.0", cronJob["removed-in"]) >= 0);
    // Where Pluto's built-in entries disagree with ours, the comments say so with our source.
    assert.match(
      response.text,
      /# {3}FlowSchema flowcontrol\.apiserver\.k8s\.io\/v1beta1: Pluto says removed-in v1\.29\.0, kubecompat v1\.26\.0 \(https:\/\/kubernetes\.io\/docs\/reference\/using-api\/deprecation-guide\/#v1-26\)/,
    );
    // The same list as YAML (`pluto list-versions -o yaml`) gives the same file.
    const asYaml = await request(runtime.app)
      .post("/api/v1/kb/export/pluto")
      .set("Content-Type", "application/yaml")
      .send(LIST_VERSIONS)
      .expect(200);
    assert.equal(asYaml.text, response.text);
  });

  it("without Pluto's list writes every removal, which Pluto refuses, and says what to send instead", async () => {
    const response = await request(runtime.app).get("/api/v1/kb/export/pluto").expect(200);
    assert.match(response.text, /POST the output of `pluto list-versions -o json` to this route/);
    assert.throws(
      () => plutoLoads(builtIn, response.text),
      /duplicate cannot be added to defaults: Deployment extensions\/v1beta1/,
    );
    const cronJob = (parse(response.text) as VersionFile)["deprecated-versions"].find(
      (entry) => entry.version === "batch/v1beta1" && entry.kind === "CronJob",
    );
    assert.deepEqual(cronJob, {
      version: "batch/v1beta1",
      kind: "CronJob",
      "deprecated-in": "v1.21.0",
      "removed-in": "v1.25.0",
      "replacement-api": "batch/v1",
      "replacement-available-in": "v1.21.0",
      component: "k8s",
    });
  });

  it("refuses a body that is not Pluto's list, naming what is wrong", async () => {
    const notPluto = await request(runtime.app)
      .post("/api/v1/kb/export/pluto")
      .send({ versions: [] })
      .expect(400);
    assert.match(
      notPluto.body.error.message,
      /has no "deprecated-versions" list; expected what `pluto list-versions -o json` prints/,
    );
    const badEntry = await request(runtime.app)
      .post("/api/v1/kb/export/pluto")
      .send({ "deprecated-versions": [{ kind: "CronJob" }] })
      .expect(400);
    assert.equal(badEntry.body.error.details[0].field, "deprecated-versions[0].version");
    const empty = await request(runtime.app)
      .post("/api/v1/kb/export/pluto")
      .set("Content-Type", "text/plain")
      .send("x")
      .expect(415);
    assert.match(
      empty.body.error.message,
      /send the output of `pluto list-versions -o json` as the body/,
    );
    await request(runtime.app)
      .post("/api/v1/kb/export/pluto")
      .set("Content-Type", "application/yaml")
      .send("deprecated-versions: [unclosed")
      .expect(400);
  });
});
