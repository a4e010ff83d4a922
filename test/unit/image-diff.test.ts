import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { compareImages } from '../../src/diff/image-diff.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-image-diff-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A white `w` × `h` PNG with the first `dark` pixels black, written to `name`. */
function png(name: string, w: number, h: number, dark = 0): string {
  const img = new PNG({ width: w, height: h });
  img.data.fill(255);
  for (let i = 0; i < dark; i++) img.data.fill(0, i * 4, i * 4 + 3);
  const file = path.join(tmp, name);
  fs.writeFileSync(file, PNG.sync.write(img));
  return file;
}

describe('compareImages', () => {
  it('byte-identical screenshots are equal, with their size, and get no diff image', () => {
    const a = png('a.png', 40, 30);
    const b = path.join(tmp, 'b.png');
    fs.copyFileSync(a, b);
    expect(compareImages(a, b, 0)).toEqual({ width: 40, height: 30, sizeChanged: false, changedPixels: 0, ratio: 0, diffPng: null });
  });

  it('the diff image is drawn only for a change beyond the threshold given', () => {
    const a = png('c.png', 10, 10);
    const b = png('d.png', 10, 10, 5);
    const below = compareImages(a, b, 0.05);
    const above = compareImages(a, b, 0.04);
    const never = compareImages(a, b);
    expect([below.changedPixels, below.ratio, below.diffPng]).toEqual([5, 0.05, null]);
    expect([never.changedPixels, never.diffPng]).toEqual([5, null]);
    expect(above.changedPixels).toBe(5);
    expect(PNG.sync.read(above.diffPng!)).toMatchObject({ width: 10, height: 10 });
  });

  it('images of another size are padded and compared; a file that is not a PNG throws', () => {
    const a = png('e.png', 10, 10);
    const b = png('f.png', 10, 12, 120);
    expect(compareImages(a, b)).toMatchObject({ width: 10, height: 12, sizeChanged: true, changedPixels: 120, ratio: 1 });
    const junk = path.join(tmp, 'junk.png');
    fs.writeFileSync(junk, 'not a png');
    expect(() => compareImages(a, junk)).toThrow();
    expect(() => compareImages(junk, junk)).toThrow();
  });
});
