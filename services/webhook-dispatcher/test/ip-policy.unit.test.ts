import fc from 'fast-check';
import { isPublicAddress } from '../src/domain/ip-policy';

const octet = fc.integer({ min: 0, max: 255 });
const ipv4In = (first: number, secondMin = 0, secondMax = 255): fc.Arbitrary<string> =>
  fc
    .tuple(fc.integer({ min: secondMin, max: secondMax }), octet, octet)
    .map(([b, c, d]) => `${first}.${b}.${c}.${d}`);
const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));

describe('isPublicAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '142.250.78.14',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '2800:3f0:4001:80b::200e',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
  ])('allows public %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.10', 'TEST-NET-1'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['febf:ffff::1', 'IPv6 link-local'],
    ['fc00::1', 'IPv6 ULA'],
    ['fd12:3456:789a::1', 'IPv6 ULA'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['3fff::1', 'IPv6 documentation'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2002:c0a8:0101::1', '6to4 (embeds 192.168.1.1)'],
    ['64:ff9b::a00:1', 'NAT64 well-known prefix (embeds 10.0.0.1)'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback in hex'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['fe80::1%eth0', 'zoned link-local'],
    ['4000::1', 'outside 2000::/3'],
    ['not-an-ip', 'junk'],
    ['', 'empty'],
    ['localhost', 'a hostname, not an address'],
    ['127.1', 'shorthand is not a literal address'],
  ])('refuses %s (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it('refuses every address of the private, loopback, link-local and CGNAT IPv4 ranges', () => {
    const nonPublic = fc.oneof(
      ipv4In(10),
      ipv4In(127),
      ipv4In(172, 16, 31),
      ipv4In(192, 168, 168),
      ipv4In(169, 254, 254),
      ipv4In(100, 64, 127),
      ipv4In(0),
      fc.integer({ min: 224, max: 255 }).chain((first) => ipv4In(first)),
    );
    fc.assert(fc.property(nonPublic, (ip) => expect(isPublicAddress(ip)).toBe(false)));
  });

  it('classifies an IPv4-mapped IPv6 address exactly like the embedded IPv4 address', () => {
    const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
    fc.assert(fc.property(ipv4, (ip) => expect(isPublicAddress(`::ffff:${ip}`)).toBe(isPublicAddress(ip))));
  });

  it('refuses every IPv6 address outside 2000::/3', () => {
    const first = fc.oneof(fc.integer({ min: 0, max: 0x1fff }), fc.integer({ min: 0x4000, max: 0xffff }));
    const ipv6 = fc
      .tuple(first, fc.array(hextet, { minLength: 7, maxLength: 7 }))
      .map(([head, rest]) => [head.toString(16), ...rest].join(':'));
    fc.assert(fc.property(ipv6, (ip) => expect(isPublicAddress(ip)).toBe(false)));
  });

  it('allows global unicast IPv6 outside the documentation, 6to4 and IETF blocks', () => {
    const first = fc.integer({ min: 0x2400, max: 0x3ffe });
    const ipv6 = fc
      .tuple(first, fc.array(hextet, { minLength: 7, maxLength: 7 }))
      .map(([head, rest]) => [head.toString(16), ...rest].join(':'));
    fc.assert(fc.property(ipv6, (ip) => expect(isPublicAddress(ip)).toBe(true)));
  });
});
