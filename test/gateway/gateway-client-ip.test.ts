import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { clientIpResolver } from '../../gateway/http/client-ip.js';

function request(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  return { socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } } as unknown as IncomingMessage;
}

describe('client address behind proxies', () => {
  it('ignores X-Forwarded-For when no proxy is trusted', () => {
    const clientIp = clientIpResolver([]);
    expect(clientIp(request('198.51.100.7', '203.0.113.9'))).to.equal('198.51.100.7');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    const clientIp = clientIpResolver(['10.0.0.0/8']);
    expect(clientIp(request('198.51.100.7', '203.0.113.9'))).to.equal('198.51.100.7');
  });

  it('takes the right-most untrusted hop when the peer is a trusted proxy', () => {
    const clientIp = clientIpResolver(['10.0.0.0/8', '192.0.2.1']);
    // The left-most entry is whatever the client claimed; only hops added by trusted proxies are believed.
    expect(clientIp(request('10.1.2.3', '1.1.1.1, 203.0.113.9, 192.0.2.1'))).to.equal('203.0.113.9');
  });

  it('matches IPv4-mapped IPv6 peers against IPv4 ranges', () => {
    const clientIp = clientIpResolver(['127.0.0.1']);
    expect(clientIp(request('::ffff:127.0.0.1', '203.0.113.9'))).to.equal('203.0.113.9');
  });

  it('keeps the peer address when the forwarded hop is not an address', () => {
    const clientIp = clientIpResolver(['10.0.0.0/8']);
    expect(clientIp(request('10.1.2.3', 'not-an-ip'))).to.equal('10.1.2.3');
  });

  it('refuses a setting that is not an address or CIDR', () => {
    expect(() => clientIpResolver(['proxy.internal'])).to.throw(/TRAWL_TRUSTED_PROXIES/);
  });
});
