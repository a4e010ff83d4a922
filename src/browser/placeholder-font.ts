/**
 * The web-font stand-in of `--assets placeholder`: the smallest valid TrueType font, built here
 * byte by byte (no font file is shipped). It has one empty glyph (`.notdef`) and maps no
 * character, so every character falls back to the next font of the CSS font stack, as while a
 * font is still loading; but it loads: `FontFace.load()`, `document.fonts.load()` and
 * `document.fonts.ready` resolve as with the real font (a font that fails to load rejects
 * `FontFace.load()`, an uncaught error on many pages). Tables as the OpenType 1.9 spec
 * (Microsoft Typography, "OpenType font file") requires for TrueType outlines, accepted by
 * Chromium's OpenType Sanitizer.
 * @module
 */

/** One table: its tag and its bytes. */
type Table = [tag: string, bytes: Buffer];

/** A buffer of big-endian fields: `[bits, value]` pairs (bits 8, 16, 32; negative values as two's complement). */
function fields(...f: [8 | 16 | 32, number][]): Buffer {
  const b = Buffer.alloc(f.reduce((n, [bits]) => n + bits / 8, 0));
  let at = 0;
  for (const [bits, v] of f) {
    if (bits === 8) b.writeUInt8(v & 0xff, at);
    else if (bits === 16) b.writeUInt16BE(v & 0xffff, at);
    else b.writeUInt32BE(v >>> 0, at);
    at += bits / 8;
  }
  return b;
}

/** The OpenType table checksum: the sum of its big-endian uint32s (zero-padded), modulo 2³². */
function checksum(b: Buffer): number {
  const padded = Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4)]);
  let sum = 0;
  for (let i = 0; i < padded.length; i += 4) sum = (sum + padded.readUInt32BE(i)) >>> 0;
  return sum;
}

const UNITS_PER_EM = 1000;

/** The font's tables (their tags in the sorted order the table directory needs). */
function tables(): Table[] {
  const head = fields(
    [32, 0x00010000], [32, 0x00010000], [32, 0], [32, 0x5f0f3cf5], // version, fontRevision, checkSumAdjustment (set later), magicNumber
    [16, 0x000b], [16, UNITS_PER_EM], // flags, unitsPerEm
    [32, 0], [32, 0], [32, 0], [32, 0], // created, modified (LONGDATETIME)
    [16, 0], [16, 0], [16, 0], [16, 0], // xMin, yMin, xMax, yMax
    [16, 0], [16, 8], [16, 2], [16, 0], [16, 0], // macStyle, lowestRecPPEM, fontDirectionHint, indexToLocFormat (short), glyphDataFormat
  );
  const hhea = fields(
    [32, 0x00010000], [16, 800], [16, -200], [16, 0], // version, ascender, descender, lineGap
    [16, 500], [16, 0], [16, 0], [16, 0], // advanceWidthMax, minLeftSideBearing, minRightSideBearing, xMaxExtent
    [16, 1], [16, 0], [16, 0], [16, 0], [16, 0], [16, 0], [16, 0], // caretSlopeRise, caretSlopeRun, caretOffset, 4 reserved
    [16, 0], [16, 1], // metricDataFormat, numberOfHMetrics
  );
  // version, numGlyphs, maxPoints, maxContours, maxCompositePoints, maxCompositeContours, maxZones, then 8 limits (twilight points, storage, function and instruction defs, stack, instruction size, components)
  const maxp = fields([32, 0x00010000], [16, 1], [16, 1], [16, 1], [16, 0], [16, 0], [16, 2], ...Array.from({ length: 8 }, (): [16, number] => [16, 0]));
  const hmtx = fields([16, 500], [16, 0]); // .notdef: advanceWidth, lsb
  // .notdef: one contour of one on-curve point at (0, 0), which draws nothing (OTS refuses an empty glyf table).
  // numberOfContours, xMin, yMin, xMax, yMax, endPtsOfContours[0], instructionLength, flags (ON_CURVE, X and Y same), pad
  const glyf = fields([16, 1], [16, 0], [16, 0], [16, 0], [16, 0], [16, 0], [16, 0], [8, 0x31], [8, 0]);
  const loca = fields([16, 0], [16, glyf.length / 2]); // short offsets (offset / 2)
  // cmap: one Windows Unicode BMP subtable (format 4) with only the required final segment: no character mapped.
  const cmap = fields(
    [16, 0], [16, 1], [16, 3], [16, 1], [32, 12], // version, numTables, platformID, encodingID, offset
    [16, 4], [16, 24], [16, 0], [16, 2], [16, 2], [16, 0], [16, 0], // format, length, language, segCountX2, searchRange, entrySelector, rangeShift
    [16, 0xffff], [16, 0], [16, 0xffff], [16, 1], [16, 0], // endCode, reservedPad, startCode, idDelta, idRangeOffset
  );
  const name = fields([16, 0], [16, 0], [16, 6]); // format, count, storageOffset
  const os2 = fields(
    [16, 1], [16, 500], [16, 400], [16, 5], [16, 0], // version, xAvgCharWidth, usWeightClass, usWidthClass, fsType
    ...Array.from({ length: 10 }, (): [16, number] => [16, 0]), // sub/superscript sizes and offsets, strikeout size and position
    [16, 0], ...Array.from({ length: 10 }, (): [8, number] => [8, 0]), // sFamilyClass, panose
    [32, 0], [32, 0], [32, 0], [32, 0], [32, 0x20202020], // ulUnicodeRange1-4, achVendID
    [16, 0x40], [16, 0xffff], [16, 0xffff], // fsSelection (REGULAR), usFirstCharIndex, usLastCharIndex
    [16, 800], [16, -200], [16, 0], [16, 800], [16, 200], [32, 1], [32, 0], // typo ascender, descender, line gap, win ascent, descent, code page ranges
  );
  const post = fields([32, 0x00030000], [32, 0], [16, -100], [16, 50], [32, 0], [32, 0], [32, 0], [32, 0], [32, 0]);
  const all: Table[] = [['OS/2', os2], ['cmap', cmap], ['glyf', glyf], ['head', head], ['hhea', hhea], ['hmtx', hmtx], ['loca', loca], ['maxp', maxp], ['name', name], ['post', post]];
  return all;
}

/** The font file: the table directory, then each table 4-byte aligned, with `head.checkSumAdjustment` set. */
function build(): Buffer {
  const ts = tables();
  const n = ts.length;
  const pow = 2 ** Math.floor(Math.log2(n));
  const directory = fields([32, 0x00010000], [16, n], [16, pow * 16], [16, Math.log2(pow)], [16, n * 16 - pow * 16]);
  const records: Buffer[] = [];
  const bodies: Buffer[] = [];
  let offset = 12 + 16 * n;
  for (const [tag, bytes] of ts) {
    records.push(Buffer.concat([Buffer.from(tag, 'latin1'), fields([32, checksum(bytes)], [32, offset], [32, bytes.length])]));
    const padded = Buffer.concat([bytes, Buffer.alloc((4 - (bytes.length % 4)) % 4)]);
    bodies.push(padded);
    offset += padded.length;
  }
  const font = Buffer.concat([directory, ...records, ...bodies]);
  const headAt = 12 + 16 * n + bodies.slice(0, ts.findIndex(([t]) => t === 'head')).reduce((s, b) => s + b.length, 0);
  font.writeUInt32BE((0xb1b0afba - checksum(font)) >>> 0, headAt + 8);
  return font;
}

let cached: string | null = null;

/** The placeholder font (TrueType, a few hundred bytes), base64-encoded. */
export function placeholderFont(): string {
  cached ??= build().toString('base64');
  return cached;
}
