/**
 * What a client without JavaScript reads from the server's HTML (src/browser/server-html.ts),
 * the decoding of a document's bytes, and the hydration messages of the frameworks
 * (src/browser/hydration.ts): no browser.
 */
import { describe, expect, it } from 'vitest';
import { hydrationEntry, hydrationFramework } from '../../src/browser/hydration.js';
import { decodeEntities, linkIdentity, readServerHtml } from '../../src/browser/server-html.js';
import { decodeHtml } from '../../src/browser/visit/inspect.js';

const URL_ = 'https://example.test/docs/page';

describe('readServerHtml', () => {
  it('reads the title, the links and the text, skipping scripts, styles, comments, templates and noscript text', () => {
    const html = `<!DOCTYPE html><html><head><title> Docs &amp; guides &mdash; Example </title>
      <style>a::before { content: "<a href='/style'>" }</style>
      <script>document.write('<a href="/scripted">x</a> lots of text');</script>
      <script type="module">const t = \`</scrip\` + \`t>\`;</script>
      </head><body>
      <!-- <a href="/commented">x</a> -->
      <h1>Install</h1><p>Run it &lt;now&gt;.</p>
      <a href="/a">A</a> <a href='b#section'>B</a> <a href=../c>C</a> <A HREF="/a#other">A again</A>
      <a href="mailto:x@example.test">mail</a> <a href="javascript:void 0">js</a> <a>no href</a>
      <area href="/map-area"> <a href="#/route">hash route</a>
      <template><a href="/templated">t</a> hidden text</template>
      <noscript>You need to enable JavaScript. <a href="/noscript-link">plain</a></noscript>
      <textarea>typed &amp; kept</textarea>
      </body></html>`;
    const r = readServerHtml(html, URL_);
    expect(r.title).toBe('Docs & guides — Example');
    expect([...r.links].sort()).toEqual(
      [
        'https://example.test/a',
        'https://example.test/docs/b',
        'https://example.test/c',
        'https://example.test/map-area',
        'https://example.test/docs/page#/route',
        'https://example.test/noscript-link',
      ].sort(),
    );
    // Install · Run it <now>. · A · B · C · A again · mail · js · no href · hash route · typed & kept
    expect(r.textLength).toBe('Install Run it <now>. A B C A again mail js no href hash route typed & kept'.length);
  });

  it('resolves links against the first <base href>, and reads a declarative shadow root', () => {
    const r = readServerHtml(
      `<base href="https://cdn.example.test/root/"><base href="/ignored/"><a href="x">x</a><div><template shadowrootmode="open"><a href="/in-shadow">s</a>Shadow text</template></div>`,
      URL_,
    );
    expect([...r.links].sort()).toEqual(['https://cdn.example.test/in-shadow', 'https://cdn.example.test/root/x']);
    expect(r.textLength).toBe('x s Shadow text'.length);
  });

  it('a document with no title, or an empty one, has none; text outside tags counts; a stray "<" is text', () => {
    expect(readServerHtml('<title>  </title><p>a < b</p>', URL_)).toEqual({ title: null, links: new Set(), textLength: 'a < b'.length });
    expect(readServerHtml('plain text, no markup', URL_).textLength).toBe('plain text, no markup'.length);
    expect(readServerHtml('', URL_)).toEqual({ title: null, links: new Set(), textLength: 0 });
  });

  it('an unterminated script or comment ends the document', () => {
    expect(readServerHtml('<p>before</p><script>var a = "<a href=/x>";', URL_)).toEqual({ title: null, links: new Set(), textLength: 'before'.length });
    expect(readServerHtml('<p>before</p><!-- <a href=/x>', URL_).links.size).toBe(0);
  });

  it('character references: numeric, hexadecimal, named, unknown', () => {
    expect(decodeEntities('&#65;&#x42;&copy;&nbsp;&unknown;&amp')).toBe('AB©\u00a0&unknown;&');
  });

  it('link identities: http(s) only, plain fragments dropped, hash routes kept', () => {
    expect(linkIdentity(' /x#top ', URL_)).toBe('https://example.test/x');
    expect(linkIdentity('#!/app', URL_)).toBe('https://example.test/docs/page#!/app');
    expect(linkIdentity('tel:123', URL_)).toBeNull();
    expect(linkIdentity('http://[bad', URL_)).toBeNull();
  });

  it('link identities are remembered by what their resolution depends on: the same href against other bases resolves anew', () => {
    // Each row twice, in two orders: a remembered answer for one base must never answer for another.
    const rows: [string, string, string | null][] = [
      ['../classes/A.html', 'http://h/x/y/p.html?q=1#f', 'http://h/x/classes/A.html'],
      ['../classes/A.html', 'http://h/x/y/other.html', 'http://h/x/classes/A.html'],
      ['../classes/A.html', 'http://h/z/w/p.html', 'http://h/z/classes/A.html'],
      ['#top', 'http://h/a/b.html?x', 'http://h/a/b.html?x'],
      ['#top', 'http://h/a/c.html', 'http://h/a/c.html'],
      ['?p=2', 'http://h/a/b.html?x', 'http://h/a/b.html?p=2'],
      ['?p=2', 'http://h/a/c.html', 'http://h/a/c.html?p=2'],
      ['', 'http://h/a/b.html?x#y', 'http://h/a/b.html?x'],
      ['', 'http://h/a/c.html', 'http://h/a/c.html'],
      ['//cdn.test/x', 'https://h/a/', 'https://cdn.test/x'],
      ['//cdn.test/x', 'http://h/a/', 'http://cdn.test/x'],
      ['/root', 'http://h/a/b', 'http://h/root'],
      ['/root', 'http://other/a/b', 'http://other/root'],
      ['http:rel', 'http://h/a/b', 'http://h/a/rel'],
      ['http:rel', 'https://h/a/b', 'http://rel/'],
      ['  http://h/Z ', 'http://q/', 'http://h/Z'],
      ['#/route', 'http://h/a/b.html', 'http://h/a/b.html#/route'],
      ['#/route', 'http://h/a/c.html', 'http://h/a/c.html#/route'],
    ];
    for (const order of [rows, [...rows].reverse()]) for (const [href, base, want] of order) expect([href, base, linkIdentity(href, base)]).toEqual([href, base, want]);
  });
});

describe('readServerHtml: the document title, not a drawing\'s', () => {
  it('skips a <title> inside <svg> or <math>, before or after the real one; a self-closing <svg/> opens nothing', () => {
    const read = (h: string): string | null => readServerHtml(h, 'http://site.test/').title;
    expect(read('<body><svg><title>Close icon</title><path d=""/></svg><p>x</p>')).toBeNull();
    expect(read('<head></head><body><svg viewBox="0 0 1 1"><title>Tip</title></svg><title>Real</title>')).toBe('Real');
    expect(read('<math><title>M</title></math><svg/><title>After</title>')).toBe('After');
    expect(read('<title>First</title><svg><title>Tip</title></svg>')).toBe('First');
  });
});

describe('decodeHtml', () => {
  it('bytes that are valid UTF-8 are UTF-8 whatever the declared charset (Chromium hands a text body over decoded); a body cut inside a character too', () => {
    const utf8 = new TextEncoder().encode('<meta charset="shift_jis"><title>日本語</title>');
    expect(decodeHtml(utf8, 'text/html; charset=Shift_JIS')).toBe('<meta charset="shift_jis"><title>日本語</title>');
    const cut = new TextEncoder().encode('<p>café 日本');
    expect(decodeHtml(cut.subarray(0, cut.length - 1), 'text/html; charset=windows-1252', true)).toBe('<p>café 日');
    // Bytes as sent, undeclared and not UTF-8: a single-byte encoding, as a browser falls back.
    expect(decodeHtml(Uint8Array.from([0x43, 0x61, 0x66, 0xe9, 0x21]), 'text/html')).toBe('Café!');
    // windows-1252's 0x80–0x9F are typographic characters, not C1 controls (also under the label latin1).
    expect(decodeHtml(Uint8Array.from([0x96, 0x20, 0x93, 0x61, 0x94, 0x20, 0x80, 0x81]), 'text/html; charset=iso-8859-1')).toBe('– “a” €\u0081');
  });

  it('uses the header charset, else a <meta charset>, else UTF-8', () => {
    const latin1 = Uint8Array.from([0x3c, 0x70, 0x3e, 0xe9, 0x3c, 0x2f, 0x70, 0x3e]); // <p>é</p> in windows-1252
    expect(decodeHtml(latin1, 'text/html; charset=ISO-8859-1')).toBe('<p>é</p>');
    const meta = new TextEncoder().encode('<meta charset="windows-1252"><p>');
    expect(decodeHtml(Uint8Array.from([...meta, 0xe9]), null)).toBe('<meta charset="windows-1252"><p>é');
    expect(decodeHtml(new TextEncoder().encode('<p>é</p>'), 'text/html')).toBe('<p>é</p>');
    expect(decodeHtml(new TextEncoder().encode('<p>é</p>'), 'text/html; charset=no-such-thing')).toBe('<p>é</p>');
  });
});

describe('hydration messages', () => {
  it("recognizes each framework's wording, in development and production builds", () => {
    const cases: [string, string | null][] = [
      ["Uncaught Error: Hydration failed because the server rendered HTML didn't match the client. As a result this tree will be regenerated", 'React'],
      ['Error: Hydration failed because the initial UI does not match what was rendered on the server.', 'React'],
      ["A tree hydrated but some attributes of the server rendered HTML didn't match the client properties. This won't be patched up.", 'React'],
      ['Minified React error #418; visit https://react.dev/errors/418?args[]=HTML for the full message', 'React'],
      ['Error: Minified React error #425; visit https://reactjs.org/docs/error-decoder.html?invariant=425', 'React'],
      ['Warning: Prop `className` did not match. Server: "a" Client: "b"', 'React'],
      ['Warning: Expected server HTML to contain a matching <div> in <main>.', 'React'],
      ['Hydration completed but contains mismatches.', 'Vue'],
      ['[Vue warn]: Hydration children mismatch on <ul>', 'Vue'],
      ['[Vue warn]: Hydration class mismatch on <div>', 'Vue'],
      ['%c[svelte] hydration_mismatch\n%cHydration failed because the initial UI does not match what was rendered on the server\nhttps://svelte.dev/e/hydration_mismatch', 'Svelte'],
      ['https://svelte.dev/e/hydration_mismatch', 'Svelte'],
      ['ERROR RuntimeError: NG0500: During hydration Angular expected <tbody> but the node was not found.', 'Angular'],
      ['NG0507: SSR content integrity marker is missing', 'Angular'],
      // Not mismatches: set-up warnings, other errors, words alone.
      ['NG0505: Angular hydration was requested on the client, but there was no serialized information', null],
      ['Minified React error #310; visit https://react.dev/errors/310', null],
      ['Hydration finished in 3 ms', null],
      ['TypeError: x is undefined', null],
    ];
    expect(cases.map(([text]) => hydrationFramework(text))).toEqual(cases.map(([, fw]) => fw));
  });

  it('keeps the first line that says what happened, with the framework', () => {
    expect(hydrationEntry('%c[svelte] hydration_mismatch\n%cHydration failed because the initial UI does not match\nhttps://svelte.dev/e/hydration_mismatch')).toBe(
      'Svelte: Hydration failed because the initial UI does not match',
    );
    expect(hydrationEntry('Hydration completed but contains mismatches.')).toBe('Vue: Hydration completed but contains mismatches.');
    expect(hydrationEntry('nothing to see')).toBeNull();
  });
});
