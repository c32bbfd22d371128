import { BlockList, isIP } from 'node:net';

type Cidr = readonly [network: string, prefix: number];

/** IPv4 ranges that are not reachable public unicast (RFC 6890 special-purpose registry and friends). */
const NON_PUBLIC_V4: readonly Cidr[] = [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast 255.255.255.255
];

/** Only global unicast is allowed for IPv6; these are carved out of it. */
const GLOBAL_UNICAST_V6: Cidr = ['2000::', 3];
const NON_PUBLIC_V6_IN_GLOBAL: readonly Cidr[] = [
  ['2001::', 23], // IETF protocol assignments, includes Teredo (2001::/32), whose embedded v4 we do not trust
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 embeds an arbitrary IPv4 address, possibly a private one
  ['3fff::', 20], // documentation (RFC 9637)
];
const IPV4_MAPPED: Cidr = ['::ffff:0:0', 96];

const nonPublicV4 = blockList(NON_PUBLIC_V4, 'ipv4');
const globalUnicastV6 = blockList([GLOBAL_UNICAST_V6], 'ipv6');
const nonPublicV6 = blockList(NON_PUBLIC_V6_IN_GLOBAL, 'ipv6');
const ipv4Mapped = blockList([IPV4_MAPPED], 'ipv6');

/** True only for a literal IP address a webhook may be delivered to; anything else (including junk) is false. */
export function isPublicAddress(ip: string): boolean {
  // A zone index (fe80::1%eth0) only ever accompanies non-global addresses, and BlockList does not understand it.
  if (ip.includes('%')) {
    return false;
  }
  switch (isIP(ip)) {
    case 4:
      return !nonPublicV4.check(ip, 'ipv4');
    case 6:
      if (ipv4Mapped.check(ip, 'ipv6')) {
        // BlockList matches IPv4 rules against IPv4-mapped IPv6 addresses, i.e. against the embedded address.
        return !nonPublicV4.check(ip, 'ipv6');
      }
      return globalUnicastV6.check(ip, 'ipv6') && !nonPublicV6.check(ip, 'ipv6');
    default:
      return false;
  }
}

function blockList(ranges: readonly Cidr[], family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) {
    list.addSubnet(network, prefix, family);
  }
  return list;
}
