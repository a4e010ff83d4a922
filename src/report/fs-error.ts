/**
 * Words for a file-system error, for one-line messages such as
 * `cannot write out/x.jsonl: its folder does not exist`.
 * @param err - what `fs` threw (a `NodeJS.ErrnoException`, or anything)
 * @returns a short phrase; the bare errno code for codes not listed, the message otherwise
 */
export function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException | null;
  switch (e?.code) {
    case 'ENOENT':
      return 'its folder does not exist';
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
    default:
      return e?.code ?? (err instanceof Error ? err.message : String(err));
  }
}
