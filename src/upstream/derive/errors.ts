/**
 * The one error of `npm run kb:derive` that is the user's to fix: a missing
 * path, a directory that is not a git repository, a file that does not parse.
 * The message names the flag and what to do; the command prints it and exits 2.
 */
export class DeriveInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeriveInputError";
  }
}
