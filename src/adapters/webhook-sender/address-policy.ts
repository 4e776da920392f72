import { BlockList, isIP } from 'node:net';

// Which addresses a webhook may never reach (unless WEBHOOK_ALLOW_PRIVATE): loopback, private,
// carrier-grade NAT, link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254), documentation,
// benchmarking, multicast and reserved ranges. IPv6 forms that carry an IPv4 address (mapped ::ffff:0:0/96,
// NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by that IPv4 address.

const V4 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT; also Alibaba's metadata 100.100.100.200
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local: AWS, GCP, Azure metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF assignments; Oracle's metadata 192.0.0.192
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
] as const) {
  V4.addSubnet(net, bits, 'ipv4');
}

const V6 = new BlockList();
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback ::1 and the deprecated IPv4-compatible form
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments, Teredo among them
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (fd00:ec2::254: AWS metadata over IPv6)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  V6.addSubnet(net, bits, 'ipv6');
}

/** The 16 bytes of an IPv6 address in any textual form (with or without `::`, with a dotted IPv4 tail). */
function ipv6Bytes(address: string): number[] {
  let text = address;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted[1].split('.').map(Number));
    text = `${text.slice(0, dotted.index)}0:0`;
  }
  const [head, rest] = text.split('::');
  const groups = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '') : []);
  const h = groups(head);
  const r = rest === undefined ? [] : groups(rest);
  const zeros = rest === undefined ? 0 : 8 - h.length - r.length;
  const all = [...h, ...Array(zeros).fill('0'), ...r].map((g) => Number.parseInt(g, 16));
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv6 address stands for (mapped, NAT64, 6to4), if any. */
function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  const zeroPrefix = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (zeroPrefix(10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12).join('.');
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b.slice(4, 12).every((x) => x === 0))
    return b.slice(12).join('.');
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6).join('.');
  return undefined;
}

/** True for an address a webhook may not reach; anything that is not an IP address counts as forbidden. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''); // brackets, IPv6 zone id
  const family = isIP(bare);
  if (family === 4) return V4.check(bare, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4 !== undefined) return V4.check(v4, 'ipv4');
    return V6.check(bare, 'ipv6');
  }
  return true;
}

/** The host of a parsed URL as an IP address, when it is one (WHATWG URL has already normalised 0x7f.1 and 2130706433). */
export function ipLiteral(url: URL): string | undefined {
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(bare) ? bare : undefined;
}
