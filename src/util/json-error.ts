/**
 * Where a JSON file is broken, said in one line: the parse error of a config file, a login
 * recipe or a storage state, with the character position and the line and column an editor can
 * go to.
 * @module
 */

/**
 * A JSON parse error of `text` as one line that says where: V8 words some errors with a
 * `position N` and others ("Unexpected token 'm', \"max-depth: 3\n…\" is not valid JSON") with
 * an excerpt of the text instead, which may hold line breaks; the excerpt is replaced by the
 * position, found as the shortest prefix of `text` that fails other than by ending early (the
 * parser stops at the first character that cannot be JSON). Then line and column are added
 * (see {@link withLineAndColumn}).
 * @param message - the `SyntaxError` message of `JSON.parse(text)`
 */
export function jsonErrorAt(message: string, text: string): string {
  const excerpt = /^(Unexpected token '.+?')(?:, [\s\S]* is not valid JSON)?$/.exec(message);
  if (!excerpt || /\bposition \d+\b/.test(message)) return withLineAndColumn(message.split('\n')[0]!, text);
  return withLineAndColumn(`${excerpt[1]} in JSON at position ${firstBadIndex(text)}`, text);
}

/** Index of the first character of `text` that cannot continue a JSON text (`text.length` when none). */
function firstBadIndex(text: string): number {
  const failsBefore = (end: number): boolean => {
    try {
      JSON.parse(text.slice(0, end));
      return false;
    } catch (err) {
      // Ending early reads as "Unexpected end of JSON input", or as an error at the end's position.
      const msg = (err as Error).message;
      const at = /\bposition (\d+)\b/.exec(msg);
      return !/Unexpected end of JSON input/.test(msg) && !(at && Number(at[1]) >= end);
    }
  };
  // The smallest prefix length that fails other than by ending early: its last character is the bad one.
  let lo = 1;
  let hi = text.length;
  if (!failsBefore(hi)) return text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (failsBefore(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo - 1;
}

/**
 * A JSON parse error's message with its `position N` (a character offset into `text`, as V8 words
 * it) followed by the line and column (1-based) it is at, which an editor can go to.
 */
export function withLineAndColumn(message: string, text: string): string {
  const m = /\bposition (\d+)\b/.exec(message);
  if (!m) return message;
  const at = Math.min(Number(m[1]), text.length);
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  return message.replace(m[0], `${m[0]} (line ${line}, column ${column})`);
}
