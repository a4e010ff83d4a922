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

/**
 * Compare two PNG files.
 * @param oldPath - the baseline's screenshot
 * @param newPath - the new screenshot
 * @param withDiff - also make the diff image (changed pixels red over a faded copy of the old
 *   shot, anti-aliasing yellow) and return it as PNG bytes in `diffPng`
 * @throws the file system's and pngjs's errors (missing file, not a PNG)
 */
export function compareImages(oldPath: string, newPath: string, withDiff = false): ImageComparison & { diffPng: Buffer | null } {
  const a = PNG.sync.read(fs.readFileSync(oldPath));
  const b = PNG.sync.read(fs.readFileSync(newPath));
  const width = Math.max(a.width, b.width);
  const height = Math.max(a.height, b.height);
  const out = withDiff ? new PNG({ width, height }) : null;
  const changedPixels = pixelmatch(padded(a, width, height).data, padded(b, width, height).data, out?.data, width, height, {
    threshold: PIXEL_THRESHOLD,
    includeAA: false,
    checkerboard: false,
  });
  const total = width * height;
  return {
    width,
    height,
    sizeChanged: a.width !== b.width || a.height !== b.height,
    changedPixels,
    ratio: total ? changedPixels / total : 0,
    diffPng: out ? PNG.sync.write(out) : null,
  };
}
