/**
 * How the Docker image runs the server: the environment its runtime stage
 * sets (ENV) and the node flags of its CMD. `npm run bench` starts the
 * server with exactly these, so what it measures is what a pod runs, and
 * test/deployment-files.test.ts checks that the heap cap fits the pod's
 * memory limit.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const DOCKERFILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../Dockerfile");

export interface DockerRuntime {
  /** ENV of the last stage (the one that runs), `NAME=value` pairs. */
  readonly env: Readonly<Record<string, string>>;
  /** What CMD passes to node before the script. */
  readonly nodeFlags: readonly string[];
  /** The script CMD runs. */
  readonly script: string;
}

export function dockerRuntime(text: string = fs.readFileSync(DOCKERFILE, "utf8")): DockerRuntime {
  // Continuation lines joined; only the last stage counts.
  const lines = text.replace(/\\\n/g, " ").split("\n");
  const lastFrom = lines.map((line) => /^FROM\s/i.test(line)).lastIndexOf(true);
  const stage = lines.slice(lastFrom + 1);
  const env: Record<string, string> = {};
  for (const line of stage) {
    const match = /^ENV\s+(.*)$/i.exec(line.trim());
    if (!match) continue;
    for (const pair of match[1]!.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g)) env[pair[1]!] = pair[2]!.replace(/^"|"$/g, "");
  }
  const cmd = stage.map((line) => /^CMD\s+(\[.*\])\s*$/i.exec(line.trim())).find((match) => match !== null);
  if (!cmd) throw new Error("the Dockerfile's last stage has no CMD in exec form");
  const argv = JSON.parse(cmd[1]!) as string[];
  if (argv[0] !== "node") throw new Error(`the Dockerfile's CMD runs ${argv[0]}, not node`);
  const script = argv.findIndex((argument, index) => index > 0 && !argument.startsWith("-"));
  return { env, nodeFlags: argv.slice(1, script), script: argv[script]! };
}

/** The value of a `--name=value` node flag, as a number. */
export function nodeFlagNumber(runtime: DockerRuntime, name: string): number | undefined {
  const flag = runtime.nodeFlags.find((entry) => entry.startsWith(`--${name}=`));
  return flag === undefined ? undefined : Number(flag.slice(name.length + 3));
}
