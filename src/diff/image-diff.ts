/**
 * One page's screenshots compared: pixelmatch over two PNGs decoded with pngjs. Nothing here
 * walks pixels itself: the library's colour threshold and anti-aliasing detection decide which
 * pixels changed (github.com/mapbox/pixelmatch).
 * @module
 */
import fs from 'node:fs';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

/**
 * pixelmatch's colour threshold: the largest perceived colour distance (OKLab HyAB, 0 = same,
 * 1 = black vs white) at which two pixels still count as equal. The library's default.
 */
export const PIXEL_THRESHOLD = 0.1;

/** How two screenshots of one page compare. */
export interface ImageComparison {
  /** Width and height compared (px): the larger of the two images in each direction. */
  width: number;
  height: number;
  /** `true` when the two images differ in size (the smaller is padded with transparent pixels, which count as changed where the other has content). */
  sizeChanged: boolean;
  /** Pixels that differ beyond {@link PIXEL_THRESHOLD}, anti-aliasing left out. */
  changedPixels: number;
  /** `changedPixels / (width × height)`, 0 for two empty images. */
  ratio: number;
}

/** `img` drawn at the top left of a transparent `width` × `height` canvas (pngjs's `bitblt`), or `img` itself when it has that size. */
function padded(img: PNG, width: number, height: number): PNG {
  if (img.width === width && img.height === height) return img;
  const out = new PNG({ width, height });
  out.data.fill(0);
  PNG.bitblt(img, out, 0, 0, img.width, img.height, 0, 0);
  return out;
}

/** The 8 bytes every PNG file starts with (PNG spec, §5.2). */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Width and height (px) from a PNG's header chunk, which the PNG spec (§5.6, §11.2.2) puts
 * first: width and height as big-endian 32-bit integers at bytes 16 and 20. `null` when the bytes
 * do not start like a PNG.
 */
function pngSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE) || bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * Compare two PNG files. Byte-identical files (a page that did not change, the usual case) are
 * equal without decoding; otherwise pixelmatch decides, and the diff image is drawn only for a
 * page that changed beyond `diffAbove` (encoding a full-page PNG costs more than comparing it).
 * @param oldPath - the baseline's screenshot
 * @param newPath - the new screenshot
 * @param diffAbove - make the diff image (changed pixels red over a faded copy of the old shot,
 *   anti-aliasing yellow) when `ratio` is above this, and return it as PNG bytes in `diffPng`;
 *   `null` (default): never
 * @throws the file system's and pngjs's errors (missing file, not a PNG)
 */
export function compareImages(oldPath: string, newPath: string, diffAbove: number | null = null): ImageComparison & { diffPng: Buffer | null } {
  const oldBytes = fs.readFileSync(oldPath);
  const newBytes = fs.readFileSync(newPath);
  const size = oldBytes.equals(newBytes) ? pngSize(oldBytes) : null;
  if (size) return { ...size, sizeChanged: false, changedPixels: 0, ratio: 0, diffPng: null };
  const a = PNG.sync.read(oldBytes);
  const b = PNG.sync.read(newBytes);
  const width = Math.max(a.width, b.width);
  const height = Math.max(a.height, b.height);
  const [pa, pb] = [padded(a, width, height), padded(b, width, height)];
  const match = (out: PNG | null): number => pixelmatch(pa.data, pb.data, out?.data, width, height, { threshold: PIXEL_THRESHOLD, includeAA: false, checkerboard: false });
  const changedPixels = match(null);
  const total = width * height;
  const ratio = total ? changedPixels / total : 0;
  let diffPng: Buffer | null = null;
  if (diffAbove !== null && ratio > diffAbove) {
    const out = new PNG({ width, height });
    match(out);
    diffPng = PNG.sync.write(out);
  }
  return { width, height, sizeChanged: a.width !== b.width || a.height !== b.height, changedPixels, ratio, diffPng };
}
