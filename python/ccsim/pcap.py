"""pcap files from the packet trace (``trace.pcap``), for Wireshark and tshark.

One file per direction of each link named in ``trace.pcap``, ``<link>-<from>-<to>.pcap``
(pcap with nanosecond timestamps, link type raw IPv4), holding every packet that direction put
on the wire, at the time its transmission started (the trace's ``-`` event): what tcpdump on
the sending node's interface records (Linux taps a device's outgoing packets after its queue
discipline, so a packet the queue dropped is not there; one the wire lost is). Headers are
written with dpkt from the trace's columns (``Result.packets``, which the core writes as on
the wire, ``crates/ccsim/src/net/wire.rs``):

- IPv4: node *k* (in the order the queues table first names it) is ``10.0.0.0 + k + 1``;
  TOS is DSCP and ECN (RFC 2474, RFC 3168); the identification field is the packet's ``uid``
  modulo 2^16; DF is set, as Linux sets it on TCP; ACNS's CMI bit is the flags field's reserved
  bit (Olšovský 2014 §4.1.1, "one additional unused bit from field Flags").
- TCP: the flow's port pair is ``1024 + i mod 64512`` (flow *i* of the flows table) at the
  sender and 5001 at the receiver; sequence and acknowledgement numbers, flags, window and
  options (MSS, SACK permitted, timestamps, window scale, SACK blocks) as the trace gives them.
  ACNS's CMT bit (§4.2.3, "new bit from the reserved field") is the reserved bit next to NS
  (RFC 3540), 0x02 of the header's data-offset byte: the paper's figure of the header does not
  say which, and that one is the only one that no RFC has since assigned. A segment with
  timestamps has room for three SACK blocks (RFC 2018 §3); a fourth is left out.
- UDP: the same ports, the receiver's 5002.

Payload bytes are zeros (ccsim carries no content). Packet lengths are those of the headers
written plus the payload: ccsim counts a fixed ``header_bytes`` per packet, without options.
"""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import dpkt

if TYPE_CHECKING:
    from .result import Result

# LINKTYPE_RAW (tcpdump.org's link-layer header types): each packet begins with its IP header.
LINKTYPE_RAW = 101
TCP_SERVER_PORT = 5001
UDP_SERVER_PORT = 5002
TCP_FLAG_BITS = {
    "FIN": dpkt.tcp.TH_FIN,
    "SYN": dpkt.tcp.TH_SYN,
    "ACK": dpkt.tcp.TH_ACK,
    "ECE": dpkt.tcp.TH_ECE,
    "CWR": dpkt.tcp.TH_CWR,
}
# ACNS's CMT in the 16 bits of data offset, reserved bits and flags: the lowest reserved bit,
# next to NS (0x100).
CMT_BIT = 0x200
# Accurate ECN's AE bit (the former NS bit, RFC 3540): the bit above CWR's byte.
AE_BIT = 0x100
MAX_OPTIONS = 40  # bytes of TCP options a 4-bit data offset leaves (RFC 9293 §3.1)


def pcap_links(result: Result) -> list[str]:
    """The links ``trace.pcap`` names (every link for ``"*"``), in the queues table's order."""
    wanted = list(result.scenario.get("trace", {}).get("pcap", []) or [])
    links = list(dict.fromkeys(result.queues["link"].astype(str)))
    return links if "*" in wanted else [x for x in links if x in wanted]


def write_pcaps(result: Result, directory: str | os.PathLike) -> list[Path]:
    """Writes one pcap file per direction of each link in ``trace.pcap`` into ``directory``;
    returns their paths (none when ``trace.pcap`` names no link)."""
    links = pcap_links(result)
    if not links:
        return []
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    q = result.queues
    nodes = list(dict.fromkeys(list(q["from"].astype(str)) + list(q["to"].astype(str))))
    address = {n: (ipaddress.IPv4Address("10.0.0.0") + k + 1).packed for k, n in enumerate(nodes)}
    f = result.flows
    ends = {
        str(name): (address[str(src)], address[str(dst)], 1024 + i % 64512)
        for i, (name, src, dst) in enumerate(zip(f["flow"], f["src"], f["dst"]))
    }
    p = result.packets
    sent = p[p["event"] == "-"]
    written = []
    for link, frm, to in zip(q["link"].astype(str), q["from"].astype(str), q["to"].astype(str)):
        if link not in links:
            continue
        rows = sent[(sent["link"] == link) & (sent["from"] == frm)]
        path = out / f"{_safe(link)}-{_safe(frm)}-{_safe(to)}.pcap"
        with open(path, "wb") as fh:
            w = dpkt.pcap.Writer(fh, snaplen=65535, linktype=LINKTYPE_RAW, nano=True)
            for r in rows.itertuples(index=False):
                w.writepkt(_packet(r, ends[str(r.flow)]), ts=r.time_s)
        written.append(path)
    return written


def _safe(name: str) -> str:
    """A node or link name as a file name part."""
    return re.sub(r"[^A-Za-z0-9_.]+", "_", name)


def _packet(r, ends: tuple[bytes, bytes, int]) -> bytes:
    """One trace row (a namedtuple of ``Result.packets``) as IPv4 bytes."""
    sender, receiver, port = ends
    data = bytes(int(r.payload))
    if r.kind == "udp":
        l4 = dpkt.udp.UDP(sport=port, dport=UDP_SERVER_PORT, data=data)
        l4.ulen = len(l4)
        src, dst, proto = sender, receiver, dpkt.ip.IP_PROTO_UDP
    else:
        flags = 0
        for name in filter(None, str(r.flags).split(",")):
            if name not in ("CMT", "AE"):
                flags |= TCP_FLAG_BITS[name]
        opts = _options(str(r.options))
        ports = (port, TCP_SERVER_PORT) if r.kind == "tcp" else (TCP_SERVER_PORT, port)
        l4 = dpkt.tcp.TCP(
            sport=ports[0],
            dport=ports[1],
            seq=int(r.seq),
            ack=int(r.ack),
            flags=flags,
            win=int(r.window),
            opts=opts,
            data=data,
        )
        l4.off = (20 + len(opts)) // 4
        names = str(r.flags).split(",")
        if "CMT" in names:
            l4._off_flags |= CMT_BIT
        if "AE" in names:
            l4._off_flags |= AE_BIT
        ours = r.kind == "tcp"
        src, dst = (sender, receiver) if ours else (receiver, sender)
        proto = dpkt.ip.IP_PROTO_TCP
    ip = dpkt.ip.IP(
        src=src,
        dst=dst,
        p=proto,
        tos=(int(r.dscp) << 2) | int(r.ecn),
        id=int(r.uid) & 0xFFFF,
        ttl=64,
        data=l4,
    )
    ip.df = 1
    ip.rf = int(r.cmi)
    return bytes(ip)


_OPTION = re.compile(
    r"mss (?P<mss>\d+)|(?P<sackok>sackOK)|TS val (?P<tsval>\d+) ecr (?P<tsecr>\d+)"
    r"|wscale (?P<wscale>\d+)|sack \d+ (?P<sack>(?:\{\d+:\d+\})+)"
)


def _options(text: str) -> bytes:
    """TCP options from the trace's tcpdump-style text, laid out as Linux lays them (NOPs
    aligning timestamps and SACK blocks to 4 bytes), padded to a multiple of 4."""
    out = b""
    for m in _OPTION.finditer(text):
        if m["mss"]:
            out += bytes([dpkt.tcp.TCP_OPT_MSS, 4]) + int(m["mss"]).to_bytes(2, "big")
        elif m["sackok"]:
            out += bytes([dpkt.tcp.TCP_OPT_SACKOK, 2])
        elif m["tsval"]:
            ts = int(m["tsval"]).to_bytes(4, "big") + int(m["tsecr"]).to_bytes(4, "big")
            out += bytes([dpkt.tcp.TCP_OPT_NOP, dpkt.tcp.TCP_OPT_NOP, dpkt.tcp.TCP_OPT_TIMESTAMP])
            out += bytes([10]) + ts
        elif m["wscale"]:
            out += bytes([dpkt.tcp.TCP_OPT_NOP, dpkt.tcp.TCP_OPT_WSCALE, 3, int(m["wscale"])])
        elif m["sack"]:
            edges = [int(x) for x in re.findall(r"\d+", m["sack"])]
            room = (MAX_OPTIONS - len(out) - 4) // 8
            blocks = list(zip(edges[::2], edges[1::2]))[:room]
            if blocks:
                out += bytes([dpkt.tcp.TCP_OPT_NOP, dpkt.tcp.TCP_OPT_NOP])
                out += bytes([dpkt.tcp.TCP_OPT_SACK, 2 + 8 * len(blocks)])
                out += b"".join(a.to_bytes(4, "big") + b.to_bytes(4, "big") for a, b in blocks)
    out += bytes([dpkt.tcp.TCP_OPT_EOL]) * (-len(out) % 4)
    return out
