/**
 * The HTTP server the app is served by (src/http/app-server.ts): requests and
 * responses are made with the app's prototypes, so Express has none to
 * change, and they still behave as Express's and Node's own. Real HTTP on a
 * port; the app is kubecompat's own for the answers, a bare Express app for
 * the prototypes alone.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import express, { type Express } from "express";
import { createAppServer } from "../src/http/app-server.js";
import { close, listen } from "./support/cli-process.js";
import { REPO_ROOT, startSnapshotRuntime, type SnapshotRuntime } from "./support/runtime.js";

interface Prototypes {
  readonly request: object;
  readonly response: object;
}

/** What the request and the response were made with, seen before Express touches them. */
function prototypesOnArrival(
  server: http.Server,
): Array<{ request: object | null; response: object | null }> {
  const seen: Array<{ request: object | null; response: object | null }> = [];
  server.prependListener("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.push({
      request: Object.getPrototypeOf(req) as object | null,
      response: Object.getPrototypeOf(res) as object | null,
    });
  });
  return seen;
}

/** Source text without its comments (which may name what the code no longer does). */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

describe("the app's HTTP server", () => {
  let app: Express;

  before(() => {
    app = express();
    app.get("/hello", (req, res) => {
      res.status(201).json({
        header: req.get("x-asked"),
        app: req.app === app,
        incoming: req instanceof http.IncomingMessage,
        response: res instanceof http.ServerResponse,
      });
    });
  });

  it("makes requests and responses with the app's prototypes, so Express changes none", async () => {
    const server = createAppServer(app);
    const arrived = prototypesOnArrival(server);
    const base = await listen(server);
    try {
      const response = await fetch(`${base}/hello`, { headers: { "x-asked": "yes" } });
      assert.equal(response.status, 201);
      assert.deepEqual(await response.json(), {
        header: "yes",
        app: true,
        incoming: true,
        response: true,
      });
      const prototypes = app as unknown as Prototypes;
      assert.equal(arrived.length, 1);
      assert.equal(
        arrived[0]!.request,
        prototypes.request,
        "the request arrives with the prototype Express would give it",
      );
      assert.equal(
        arrived[0]!.response,
        prototypes.response,
        "the response arrives with the prototype Express would give it",
      );
    } finally {
      await close(server);
    }
  });

  it("is not what http.createServer does on its own (the check above can fail)", async () => {
    const server = http.createServer(app);
    const arrived = prototypesOnArrival(server);
    const base = await listen(server);
    try {
      assert.equal((await fetch(`${base}/hello`)).status, 201);
      assert.equal(arrived.length, 1);
      assert.equal(arrived[0]!.request, http.IncomingMessage.prototype);
      assert.notEqual(arrived[0]!.request, (app as unknown as Prototypes).request);
    } finally {
      await close(server);
    }
  });

  it("serves a second server of the same app alike, and the first one still answers", async () => {
    const first = createAppServer(app);
    const second = createAppServer(app);
    const arrived = prototypesOnArrival(second);
    const [firstBase, secondBase] = [await listen(first), await listen(second)];
    try {
      for (const base of [firstBase, secondBase]) {
        const response = await fetch(`${base}/hello`, { headers: { "x-asked": base } });
        assert.deepEqual(await response.json(), {
          header: base,
          app: true,
          incoming: true,
          response: true,
        });
      }
      assert.equal(arrived[0]!.request, (app as unknown as Prototypes).request);
    } finally {
      await Promise.all([close(first), close(second)]);
    }
  });

  describe("with kubecompat's app", () => {
    let runtime: SnapshotRuntime;
    let server: http.Server;
    let base: string;

    before(async () => {
      runtime = await startSnapshotRuntime();
      server = createAppServer(runtime.app);
      base = await listen(server);
    });
    after(async () => {
      await close(server);
      await runtime.close();
    });

    it("answers a check, a read, a probe and a refused request as it does under http.createServer", async () => {
      const plain = http.createServer(runtime.app);
      const plainBase = await listen(plain);
      try {
        const ask = async (at: string) => {
          const validate = await fetch(`${at}/api/v1/validate`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              components: [
                { component: "kube-apiserver", version: "1.30.4" },
                { component: "kubelet", version: "1.26.0", instance: "pool-b" },
              ],
              asOf: "2026-11-29",
            }),
          });
          const components = await fetch(`${at}/api/v1/components?name=kube-apiserver`);
          const healthz = await fetch(`${at}/healthz`);
          const refused = await fetch(`${at}/api/v1/validate`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{",
          });
          return {
            validate: [validate.status, await validate.json()],
            components: [
              components.status,
              components.headers.get("etag"),
              await components.json(),
            ],
            healthz: [healthz.status, healthz.headers.get("x-content-type-options")],
            refused: [
              refused.status,
              ((await refused.json()) as { error?: { code?: string } }).error?.code,
            ],
          };
        };
        const served = await ask(base);
        assert.equal(served.validate[0], 200);
        assert.equal(
          (served.validate[1] as { ok: boolean }).ok,
          false,
          "a kubelet four minors behind its apiserver is a finding",
        );
        assert.deepEqual(served.healthz, [200, "nosniff"]);
        assert.equal(served.refused[0], 400);
        assert.deepEqual(served, await ask(plainBase));
      } finally {
        await close(plain);
      }
    });
  });

  it("is how the service and the offline server serve the app (no other HTTP server in src/)", () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (
          file.endsWith(".ts") &&
          !file.endsWith(path.join("http", "app-server.ts")) &&
          /\bhttps?\.createServer\(/.test(withoutComments(fs.readFileSync(file, "utf8")))
        ) {
          offenders.push(path.relative(REPO_ROOT, file));
        }
      }
    };
    walk(path.join(REPO_ROOT, "src"));
    assert.deepEqual(offenders, []);
    for (const file of ["src/server.ts", "src/offline.ts"])
      assert.match(
        fs.readFileSync(path.join(REPO_ROOT, file), "utf8"),
        /createAppServer\(handle\.app\)/,
        file,
      );
  });
});
