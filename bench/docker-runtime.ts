/**
 * How the Docker image runs the server: the environment its runtime stage
 * sets (ENV) and the node flags of its CMD. `npm run bench` starts the
 * server with exactly these, so what it measures is what a pod runs, and
 * test/deployment-files.test.ts checks that the heap cap fits the pod's
 * memory limit.
 */
import fs from "node:fs";
import { DOCKERFILE, runtimeStage } from "../scripts/docker-stage.js";

export { DOCKERFILE };

export interface DockerRuntime {
  /** ENV of the last stage (the one that runs), `NAME=value` pairs. */
  readonly env: Readonly<Record<string, string>>;
  /** What CMD passes to node before the script. */
  readonly nodeFlags: readonly string[];
  /** The script CMD runs. */
  readonly script: string;
}

export function dockerRuntime(text: string = fs.readFileSync(DOCKERFILE, "utf8")): DockerRuntime {
  // The same reading of the Dockerfile as scripts/docker-stage.ts, which replays the whole stage.
  const stage = runtimeStage(text);
  const argv = stage.cmd;
  if (argv[0] !== "node") throw new Error(`the Dockerfile's CMD runs ${argv[0]}, not node`);
  const script = argv.findIndex((argument, index) => index > 0 && !argument.startsWith("-"));
  return { env: stage.env, nodeFlags: argv.slice(1, script), script: argv[script]! };
}

/** The value of a `--name=value` node flag, as a number. */
export function nodeFlagNumber(runtime: DockerRuntime, name: string): number | undefined {
  const flag = runtime.nodeFlags.find((entry) => entry.startsWith(`--${name}=`));
  return flag === undefined ? undefined : Number(flag.slice(name.length + 3));
}
