/**
 * Words for file-system errors in one-line messages (src/util/files.ts `describeFsError`).
 */
import { describe, expect, it } from 'vitest';
import { describeFsError } from '../../src/util/files.js';

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: x, write`), { code });

describe('describeFsError', () => {
  it('says in words what the codes a write meets mean (EIO is what /proc/version answers a write as root)', () => {
    expect(describeFsError(errno('EIO'))).toBe('the device refused it (an input/output error)');
    expect(describeFsError(errno('EBUSY'))).toBe('it is busy');
    expect(describeFsError(errno('ENAMETOOLONG'))).toBe('its name is too long');
    expect(describeFsError(errno('ENOSPC'))).toBe('no space left on the device');
    expect(describeFsError(errno('EACCES'))).toBe('permission denied');
  });

  it('keeps the bare code of one it has no words for, and the message of an error without a code', () => {
    expect(describeFsError(errno('EXDEV'))).toBe('EXDEV');
    expect(describeFsError(new Error('odd'))).toBe('odd');
  });
});
