// The SSRF rules: which addresses a webhook may reach, at registration and inside the socket's own
// lookup at send time (a name that resolves elsewhere later cannot get around it).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { blockedAddress, checkTarget, type Resolver } from './targets.js';
import { Sender } from './sender.js';

const strict = { allowHttp: false, allowPrivate: false };
const fakeDns =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('blockedAddress', () => {
  it('lets only public unicast addresses through', () => {
    expect(blockedAddress('93.184.216.34')).toBeNull();
    expect(blockedAddress('2606:4700:4700::1111')).toBeNull();
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
      '198.18.0.1',
    ]) {
      expect(blockedAddress(address), address).not.toBeNull();
    }
  });
});

describe('blockedAddress on IPv6 forms that embed an IPv4 address', () => {
  // Each embeds a refused IPv4 address; the reason names it.
  const embedding: [string, RegExp][] = [
    ['::7f00:1', /IPv4-compatible address of 127\.0\.0\.1, a loopback address/],
    ['::a9fe:a9fe', /IPv4-compatible address of 169\.254\.169\.254, a linkLocal address/],
    ['::a00:7', /IPv4-compatible address of 10\.0\.0\.7, a private address/],
    ['::ffff:7f00:1', /loopback address/],
    ['64:ff9b::7f00:1', /NAT64 address of 127\.0\.0\.1, a loopback address/],
    ['64:ff9b::a9fe:a9fe', /NAT64 address of 169\.254\.169\.254, a linkLocal address/],
    ['2002:7f00:1::1', /6to4 address of 127\.0\.0\.1, a loopback address/],
    ['2002:a00:7:1::5', /6to4 address of 10\.0\.0\.7, a private address/],
    // Teredo: the server's IPv4 in bits 32-64, the client's in the last 32 bits, inverted.
    ['2001:0:a00:7::1', /Teredo address of 10\.0\.0\.7, a private address/],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', /Teredo address of 127\.0\.0\.1, a loopback address/],
  ];
  for (const [address, reason] of embedding) {
    it(`refuses ${address}, naming what it embeds`, () => {
      expect(blockedAddress(address)).toMatch(reason);
    });
  }

  it('refuses the local-use NAT64 prefix, and the deprecated and relay forms, even around a public IPv4', () => {
    expect(blockedAddress('64:ff9b:1::808:808')).toMatch(/local-use NAT64/);
    expect(blockedAddress('::808:808')).toMatch(/IPv4-compatible/);
    expect(blockedAddress('2002:808:808::1')).toMatch(/6to4/);
    expect(blockedAddress('2001:0:4136:e378:8000:63bf:f7f7:f7f7')).toMatch(/Teredo/);
  });

  it('lets the well-known NAT64 prefix reach a public IPv4 address (IPv6-only networks with DNS64)', () => {
    expect(blockedAddress('64:ff9b::808:808')).toBeNull();
  });
});

describe('checkTarget', () => {
  const dns = fakeDns({
    'hooks.example.com': ['93.184.216.34'],
    'internal.example.com': ['93.184.216.34', '10.0.0.7'],
    'metadata.example.com': ['169.254.169.254'],
  });

  it('accepts an https URL whose every address is public', async () => {
    expect(await checkTarget('https://hooks.example.com/in', strict, dns)).toMatchObject({ ok: true });
  });

  it('refuses a name with any private address, and one that does not resolve', async () => {
    expect(await checkTarget('https://internal.example.com/in', strict, dns)).toEqual({
      ok: false,
      message: 'url must not point at a private address (internal.example.com resolves to 10.0.0.7, a private address)',
    });
    expect(await checkTarget('https://metadata.example.com/', strict, dns)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/linkLocal/),
    });
    expect(await checkTarget('https://nowhere.example.com/', strict, dns)).toEqual({
      ok: false,
      message: 'url host "nowhere.example.com" does not resolve (ENOTFOUND)',
    });
  });

  it('refuses IPv4-compatible and other embedding IPv6 forms, written in the URL or answered by DNS', async () => {
    for (const url of [
      'https://[::7f00:1]/h',
      'https://[::127.0.0.1]/h',
      'https://[64:ff9b::a00:1]/h',
      'https://[2002:a9fe:a9fe::1]/h',
    ]) {
      expect(await checkTarget(url, strict, dns), url).toMatchObject({
        ok: false,
        message: expect.stringMatching(/must not point at a private address/),
      });
    }
    const sneaky = fakeDns({ 'v6.example.com': ['2606:4700:4700::1111', '::7f00:1'] });
    expect(await checkTarget('https://v6.example.com/h', strict, sneaky)).toEqual({
      ok: false,
      message:
        'url must not point at a private address (v6.example.com resolves to ::7f00:1, a deprecated IPv4-compatible address of 127.0.0.1, a loopback address)',
    });
  });

  it('with private targets allowed (tests, demos), resolves nothing and accepts loopback', async () => {
    expect(await checkTarget('http://127.0.0.1:4000/hook', { allowHttp: true, allowPrivate: true }, dns)).toMatchObject(
      { ok: true },
    );
  });
});

describe('Sender', () => {
  // Registered while the name resolved publicly; by send time it answers a refused address.
  it.each([
    [
      'now resolves to loopback (DNS rebinding)',
      'rebind.example.com',
      '127.0.0.1',
      'refused: rebind.example.com resolves to 127.0.0.1, a loopback address',
    ],
    [
      'answers an IPv4-compatible IPv6 form of loopback',
      'compat.example.com',
      '::7f00:1',
      'refused: compat.example.com resolves to ::7f00:1, a deprecated IPv4-compatible address of 127.0.0.1, a loopback address',
    ],
  ])('refuses at connect time a name that %s: nothing reaches the receiver', async (_case, name, address, error) => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const sender = new Sender({
      policy: { allowHttp: true, allowPrivate: false },
      timeoutMs: 2000,
      socketsPerHost: 2,
      resolve: fakeDns({ [name]: [address] }),
    });
    try {
      const outcome = await sender.send({ url: `http://${name}:${port}/hook`, body: '{}', headers: {} });
      expect(outcome).toMatchObject({ ok: false, status: null, error });
      expect(hits).toBe(0);
    } finally {
      sender.close();
      server.close();
    }
  });

  it('reads at most a few kilobytes of a failing answer and keeps an excerpt', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(500);
      res.end('x'.repeat(1_000_000));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sender = new Sender({ policy: { allowHttp: true, allowPrivate: true }, timeoutMs: 2000, socketsPerHost: 2 });
    try {
      const outcome = await sender.send({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        body: '{}',
        headers: {},
      });
      expect(outcome.ok).toBe(false);
      expect(outcome.status).toBe(500);
      expect(outcome.error).toMatch(/^receiver answered 500: x{200}$/);
    } finally {
      sender.close();
      server.close();
    }
  });
});
