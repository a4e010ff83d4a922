/**
 * Text made safe to print on a terminal: page text (titles, anchor text, script errors) is
 * written by whoever runs the site, and a terminal obeys the control codes in it.
 * @module
 */

/**
 * The characters a terminal would act on instead of showing: C0 controls but the tab (ESC starts
 * colours, cursor moves, screen clears, window titles, OSC 52 clipboard writes and OSC 8 links;
 * CR and LF forge lines), DEL, C1 controls (U+009B is a one-character CSI on some terminals), and
 * the bidirectional overrides and isolates, which reorder what the line shows.
 */
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every character a terminal would act on written as a visible JSON-style escape
 * (`\u001b`, `\u000a`), so that it prints as one line that shows what it says.
 * @example printable('a\u001b]0;pwned\u0007b') // 'a\\u001b]0;pwned\\u0007b'
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
