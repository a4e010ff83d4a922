import type { CDPSession } from 'playwright';

/** One CDP command a session was asked to send. */
export interface SentCommand {
  method: string;
  params: Record<string, unknown> | undefined;
}

/**
 * The commands `cdp` is asked to send from now on, in order (the session itself is real: each
 * is sent as asked). For tests that count the protocol calls a piece of spacrawl makes.
 */
export function recordSends(cdp: CDPSession): SentCommand[] {
  const sent: SentCommand[] = [];
  const send = cdp.send.bind(cdp);
  (cdp as { send: (method: string, params?: Record<string, unknown>) => Promise<unknown> }).send = (method, params) => {
    sent.push({ method, params });
    return send(method as never, params as never);
  };
  return sent;
}
