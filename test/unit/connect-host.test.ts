import { describe, expect, it } from 'vitest';
import { connectHost } from '../../src/net/connect.js';

describe('connectHost (RFC 6761 §6.3)', () => {
  it('names under localhost, and localhost. with its final dot, are the loopback; other names as given', () => {
    expect(['app.localhost', 'A.B.LOCALHOST', 'localhost.', 'sub.app.localhost.'].map(connectHost)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1']);
    expect(['localhost', 'notlocalhost', 'localhost.example.com', '127.0.0.1', '::1'].map(connectHost)).toEqual(['localhost', 'notlocalhost', 'localhost.example.com', '127.0.0.1', '::1']);
  });
});
