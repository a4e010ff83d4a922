import fs from 'node:fs';
import path from 'node:path';

/**
 * Words for a file-system error, for one-line messages such as
 * `cannot write out/x.jsonl: its folder does not exist`.
 * @param err - what `fs` threw (a `NodeJS.ErrnoException`, or anything)
 * @param op - what was tried: a missing path means a missing folder for a write, a missing file for a read
 * @returns a short phrase; the bare errno code for codes not listed, the message otherwise
 */
export function describeFsError(err: unknown, op: 'write' | 'read' = 'write'): string {
  const e = err as NodeJS.ErrnoException | null;
  switch (e?.code) {
    case 'ENOENT':
      if (op === 'read') return 'no such file';
      // The folder is there but refuses new entries (a pseudo file system such as /proc).
      return e.path && fs.existsSync(path.dirname(e.path)) ? 'it cannot be created there' : 'its folder does not exist';
    case 'ENOTDIR':
      return 'a part of its path is a file, not a folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'EISDIR':
      return 'it is a folder';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EEXIST':
      return 'a file of that name is in the way';
    case 'EIO':
      return 'the device refused it (an input/output error)';
    case 'EBUSY':
    case 'ETXTBSY':
      return 'it is busy';
    case 'ENAMETOOLONG':
      return 'its name is too long';
    case 'EFBIG':
      return 'the file is too large';
    default:
      return e?.code ?? (err instanceof Error ? err.message : String(err));
  }
}

/**
 * Create a folder and its missing parents, one level at a time, and check that it is writable.
 * Unlike `fs.mkdirSync(dir, { recursive: true })`, it cannot loop: Node 20's recursive mkdir
 * spins forever on some paths of pseudo file systems (e.g. `/proc/x`).
 * @param dir - the folder to create (an existing folder is fine)
 * @throws the `fs` error (`ENOENT`, `ENOTDIR`, `EACCES`, …) of the first level that cannot be
 *   made, or of the write-access check
 */
export function ensureWritableDir(dir: string): void {
  for (const m of missingFolders(dir).reverse()) {
    try {
      fs.mkdirSync(m);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  if (!fs.statSync(dir).isDirectory()) {
    const e = new Error(`ENOTDIR: not a directory, mkdir '${dir}'`) as NodeJS.ErrnoException;
    e.code = 'ENOTDIR';
    throw e;
  }
  fs.accessSync(dir, fs.constants.W_OK);
}

/**
 * The folders {@link ensureWritableDir} would create for `dir` now: `dir` and its missing
 * parents, innermost first (empty when `dir` exists).
 * @param dir - a folder path (relative to the working directory, or absolute)
 */
export function missingFolders(dir: string): string[] {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) {
    missing.push(d);
    if (path.dirname(d) === d) break;
  }
  return missing;
}

/**
 * Remove each of these folders that is empty, in the order given (innermost first), so that a
 * command refused after it made its output folders leaves nothing behind. A folder that holds
 * anything, or cannot be removed, is left as it is.
 * @param dirs - e.g. from {@link missingFolders} before the folders were made
 */
export function removeEmptyFolders(dirs: readonly string[]): void {
  for (const d of dirs) {
    try {
      fs.rmdirSync(d);
    } catch {
      // not empty, gone already, or not ours to remove: leave it
    }
  }
}

/**
 * Check before a crawl that a report file can be written at the end: open it for appending
 * (which neither truncates an existing file nor changes its content), and remove it again if
 * this check created it.
 * @param file - the report's path
 * @throws the `fs` error of the open (`ENOENT`, `EISDIR`, `EACCES`, …)
 */
export function checkWritableFile(file: string): void {
  const existed = fs.existsSync(file);
  fs.closeSync(fs.openSync(file, 'a'));
  if (!existed) fs.rmSync(file, { force: true });
}
