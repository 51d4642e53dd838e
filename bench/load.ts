/**
 * One load scenario, run in its own process so that `npm run bench` can pin
 * it to other CPUs than the server's (a load generator sharing the server's
 * core takes CPU from the server and flattens every ratio). Reads the
 * scenario as JSON on stdin (a 1 MB body is too long for argv), prints
 * autocannon's result as JSON (one line, the last).
 */
import autocannon from "autocannon";

export interface LoadScenario {
  readonly url: string;
  readonly method?: "GET" | "POST";
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly connections: number;
  readonly duration: number;
  /**
   * Makes every request a new question, so no answer can be remembered: the
   * body's first `"instance":"bench"` becomes `"instance":"bench-<n>"`.
   */
  readonly distinct?: boolean;
  /**
   * Prints a line "started" just before the load begins (the result still
   * follows as the last line), so that a writer running beside it can start
   * its measured window with it.
   */
  readonly announceStart?: boolean;
}

let input = "";
for await (const chunk of process.stdin) input += String(chunk);
const scenario = JSON.parse(input) as LoadScenario;
let counter = 0;
if (scenario.announceStart) process.stdout.write("started\n");
const result = await autocannon({
  url: scenario.url,
  method: scenario.method ?? "GET",
  headers: scenario.headers,
  body: scenario.body,
  connections: scenario.connections,
  duration: scenario.duration,
  ...(scenario.distinct && scenario.body !== undefined
    ? {
        requests: [
          {
            setupRequest: (request) => {
              counter += 1;
              return {
                ...request,
                body: scenario.body!.replace('"instance":"bench"', `"instance":"bench-${counter}"`),
              };
            },
          },
        ],
      }
    : {}),
});
process.stdout.write(JSON.stringify(result));
