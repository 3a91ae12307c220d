"""The benchmark scenarios in ns-3 (the ``ns3`` pip package, cppyy bindings), for --vs-ns3.

The ns-3 network is built to match ``ccsim_scenario()`` (bench/scenarios.py):

* Dumbbell of PointToPoint links: ``s{i}`` - left - right - ``d{i}``. The bottleneck runs at
  ``b.rate_bps`` with ``b.bottleneck_delay_s``; access links at ten times that rate with
  ``b.access_delay_s``. ns-3 adds a 2-byte PPP header to every frame, so a 1500-byte IP packet
  takes 1502 bytes of link time: ns-3's ceiling is 0.13 % below ccsim's.
* Queues: no traffic-control layer in the path. The PointToPointHelper's flow control is
  disabled, so the devices have no NetDeviceQueueInterface; ``Ipv4AddressHelper.Assign`` then
  installs no root queue disc (it would install FqCoDel), and the traffic-control layer hands
  each packet straight to the device's DropTail queue, the only queue. The bottleneck's holds
  ``b.queue`` packets in each direction, not counting the packet on the transmitter: ccsim's
  DropTail ``limit``; its drops are the queue's own count. (With flow control on and the queue
  discs uninstalled, the traffic-control layer drops, uncounted, whatever arrives while the
  device queue is stopped, i.e. full: a first version counted 0 bottleneck drops that way. A
  pfifo of ``b.queue`` over a tiny device queue would be the alternative; it holds the device
  queue's packets more, and stops and wakes the device queue on every packet.) The access links
  get ccsim's Linux-profile default, 1000 packets; ``drops_access`` in the result says whether
  they dropped.
* TCP: TcpLinuxReno ("newreno", see ``TCP``) or TcpCubic ("cubic") with ns-3's defaults for the
  algorithm (CUBIC: β 0.7, C 0.4, HyStart, fast convergence, TCP friendliness), SegmentSize
  1448, timestamps and SACK on (a data packet is 1448 + 20 TCP + 12 options + 20 IP = 1500
  bytes), window scaling on, initial cwnd 10, MinRto 200 ms, clock granularity 1 ms, delayed
  ACKs every second segment with a 40 ms timer (ccsim's Linux profile; ns-3's default is
  200 ms), TcpClassicRecovery (cwnd = ssthresh, sending governed by the SACK scoreboard's pipe:
  RFC 6675, ccsim's "sack" recovery; ns-3's default is PRR), send and receive buffers of
  64 MiB. ns-3's RTO is max(MinRto, SRTT + 4·RTTVAR), ccsim's (Linux) SRTT + max(MinRto,
  4·RTTVAR): on these 40 ms paths ns-3's timer is about 40 ms shorter.
* Traffic: a BulkSendApplication (MaxBytes 0) per sender starting at ``i/flows`` s, a PacketSink
  per receiver; global routing.

No Python runs per packet: the counters (sink bytes, queue drops, event count) are read once
the run is over.
"""

from __future__ import annotations

import time
from pathlib import Path

from scenarios import Bench

MSS = 1448
BUF_BYTES = 64 * 1024 * 1024
# Bytes BulkSend writes into the socket at a time: the socket's buffer holds 64 MiB, which in
# 512-byte writes (the default) would be 131,072 packet objects per flow.
SEND_SIZE = 64 * 1024
ACCESS_QUEUE = 1000  # ccsim's Linux-profile default DropTail limit, packets
PORT = 5000
# ccsim's "reno" under the Linux profile counts ACKed segments (RFC 3465, as Linux does): slow
# start grows by two segments per delayed ACK, congestion avoidance by one segment per window of
# segments ACKed. ns-3's TcpLinuxReno does the same; its TcpNewReno grows by one segment (slow
# start) or MSS²/cwnd (congestion avoidance) per ACK, half as fast with delayed ACKs, which
# halves the slow-start overshoot and the number of sawtooth cycles (scenario a over 60 s:
# 71 bottleneck drops against ccsim's 146; TcpLinuxReno: 149). Goodput is the same either way.
TCP = {"newreno": "ns3::TcpLinuxReno", "cubic": "ns3::TcpCubic"}


def import_ns():
    """The ns-3 module (``from ns import ns``); ImportError if the ns3 package is missing."""
    try:
        from ns import ns
    except ImportError as e:
        raise ImportError(f"cannot import ns-3 ('from ns import ns'; pip install ns3): {e}") from e
    return ns


def _rss_kib(field: str) -> int:
    """VmRSS or VmHWM of this process, KiB (Linux /proc); as bench/run.py's."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def _ns(seconds: float) -> int:
    return round(seconds * 1e9)


def _configure_tcp(ns, cc: str) -> None:
    def default(name: str, value) -> None:
        ns.Config.SetDefault(name, value)

    default("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName(TCP[cc])))
    default(
        "ns3::TcpL4Protocol::RecoveryType",
        ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")),
    )
    default("ns3::TcpSocket::SegmentSize", ns.UintegerValue(MSS))
    default("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(10))
    default("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    default("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.MilliSeconds(40)))
    default("ns3::TcpSocket::SndBufSize", ns.UintegerValue(BUF_BYTES))
    default("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(BUF_BYTES))
    default("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(200)))
    default("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.MilliSeconds(1)))
    default("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(True))
    default("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    default("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))


def _link(ns, a, b, rate_bps: float, delay_s: float, queue: int):
    """A PointToPoint link a-b; both directions' device queues DropTail of ``queue`` packets."""
    p2p = ns.PointToPointHelper()
    # No NetDeviceQueueInterface: with one, IP (through the traffic-control layer) would see a
    # full device queue as stopped and drop there, out of the queue's drop count.
    p2p.DisableFlowControl()
    p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(round(rate_bps))))
    p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.NanoSeconds(_ns(delay_s))))
    devs = p2p.Install(a, b)
    for k in range(2):
        q = ns.DynamicCast[ns.PointToPointNetDevice](devs.Get(k)).GetQueue()
        q.SetAttribute("MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{queue}p")))
    return devs


def _queue(ns, devs, k: int):
    return ns.DynamicCast[ns.PointToPointNetDevice](devs.Get(k)).GetQueue()


def child_ns3(b: Bench) -> dict:
    """One ns-3 run of benchmark ``b`` in this process, reported as bench/run.py's ccsim child."""
    from ccsim.metrics import jain_index

    ns = import_ns()
    rss0 = _rss_kib("VmRSS")
    _configure_tcp(ns, b.cc)

    routers = ns.NodeContainer()
    routers.Create(2)
    senders = ns.NodeContainer()
    senders.Create(b.flows)
    receivers = ns.NodeContainer()
    receivers.Create(b.flows)
    left, right = routers.Get(0), routers.Get(1)

    access_bps = b.rate_bps * 10
    bottleneck = _link(ns, left, right, b.rate_bps, b.bottleneck_delay_s, b.queue)
    access_s = [
        _link(ns, senders.Get(i), left, access_bps, b.access_delay_s, ACCESS_QUEUE)
        for i in range(b.flows)
    ]
    access_d = [
        _link(ns, right, receivers.Get(i), access_bps, b.access_delay_s, ACCESS_QUEUE)
        for i in range(b.flows)
    ]

    ns.InternetStackHelper().Install(ns.NodeContainer.GetGlobal())
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    all_devs = [bottleneck, *access_s, *access_d]
    ifaces = []
    for devs in all_devs:
        ifaces.append(addr.Assign(devs))
        addr.NewNetwork()
    # Assign() installs ns-3's default root queue disc (FqCoDel) only on devices with a
    # NetDeviceQueueInterface, which _link's devices lack: the traffic-control layer passes
    # packets straight to the device queues, the only queues.
    tcl = left.GetObject[ns.TrafficControlLayer]()
    if tcl.GetRootQueueDiscOnDevice(bottleneck.Get(0)):
        raise RuntimeError("ns-3 installed a queue disc on the bottleneck")
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sinks, starts = [], []
    any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), PORT).ConvertTo()
    sink_helper = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr)
    for i in range(b.flows):
        apps = sink_helper.Install(receivers.Get(i))
        apps.Start(ns.Seconds(0))
        sinks.append(ns.DynamicCast[ns.PacketSink](apps.Get(0)))
        dst_ip = ifaces[1 + b.flows + i].GetAddress(1)  # d{i}'s end of access_d{i}
        dst = ns.InetSocketAddress(dst_ip, PORT).ConvertTo()
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(SEND_SIZE))
        apps = bulk.Install(senders.Get(i))
        start_ns = _ns(i / b.flows)  # ccsim gets f"{i / n:.9f}s": the same nanosecond
        apps.Start(ns.NanoSeconds(start_ns))
        starts.append(start_ns / 1e9)
    ns.Simulator.Stop(ns.NanoSeconds(_ns(b.duration_s)))
    rss_built = _rss_kib("VmRSS")

    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0
    peak = _rss_kib("VmHWM")

    rx = [int(s.GetTotalRx()) for s in sinks]
    goodput = [8 * r / (b.duration_s - t) for r, t in zip(rx, starts)]
    events = int(ns.Simulator.GetEventCount())  # events executed by Run()
    drops = int(_queue(ns, bottleneck, 0).GetTotalDroppedPackets())  # left -> right
    drops_access = sum(
        int(_queue(ns, devs, k).GetTotalDroppedPackets()) for devs in all_devs[1:] for k in (0, 1)
    )
    drops_reverse = int(_queue(ns, bottleneck, 1).GetTotalDroppedPackets())
    ns.Simulator.Destroy()
    return {
        "sim_s": b.duration_s,
        # In-order bytes the sinks received, in MSS-sized data packets. The senders always have
        # more than a segment to send and ns-3 holds back a sub-MSS segment while more data
        # waits, so every segment is full-sized and this is the count of distinct data packets
        # delivered (ccsim counts arrivals at the receiver, duplicates included: a few more).
        "delivered": sum(rx) // MSS,
        "events": events,
        "wall_s": wall,
        "rss_built_kib": rss_built - rss0,
        "rss_peak_kib": peak - rss0,
        "packets_peak": 0,  # ns-3 keeps no count of the packets alive
        "flows": b.flows,
        "goodput_bps": sum(goodput),
        "drops": drops,
        "jain": jain_index(goodput),
        "drops_access": drops_access,
        "drops_reverse": drops_reverse,
    }
