/**
 * A TLS handshake that fails says why in one line (src/net/connect.ts `tlsFailure`): an
 * `https://` URL on a port that speaks plain HTTP, against a real local server.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tlsFailure } from '../../src/net/connect.js';
import { HttpClient, HttpRequestError } from '../../src/net/http-client.js';

let server: net.Server;
let port = 0;

beforeAll(async () => {
  // Answers whatever it is sent with a plain HTTP response, as an http:// server does.
  server = net.createServer((c) => c.once('data', () => c.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n')));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe('tlsFailure', () => {
  it('an https:// request to a plain-http port fails with one readable line, no OpenSSL text', async () => {
    const client = new HttpClient({ userAgent: 'spacrawl-test' });
    const err = await client.request(`https://127.0.0.1:${port}/robots.txt`, { timeoutMs: 5_000 }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(HttpRequestError);
    expect((err as HttpRequestError).message).toBe('TLS handshake failed: the server did not answer in TLS (plain http on this port?)');
  });

  it('keeps the reason of other OpenSSL failures and leaves other messages as they are', () => {
    expect(tlsFailure(new Error('C0DE:error:0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure:../ssl/record/rec_layer_s3.c:1605:SSL alert number 40'))).toBe('TLS handshake failed: sslv3 alert handshake failure');
    expect(tlsFailure(new Error('self-signed certificate'))).toBe('self-signed certificate');
  });
});
