"""pcap export (``trace.pcap``, ccsim.pcap): one file per direction of each named link, read
back with scapy (a second, independent pcap library) field by field against the packet trace,
and, where tshark is installed, with Wireshark's TCP analysis: its retransmissions and
duplicate ACKs are ccsim's own counts."""

import shutil
import subprocess

import pytest

ccsim = pytest.importorskip("ccsim")
pytest.importorskip("ccsim._core")
scapy_all = pytest.importorskip("scapy.all")

# ACNS at the bottleneck, so that CMI and CMT appear; a SACK Reno flow with ACNS and DSCP 26,
# an ECN NewReno flow without timestamps, and CBR with DSCP 46.
SCENARIO = {
    "name": "pcap",
    "duration": 8,
    "seed": 3,
    "defaults": "linux",
    "topology": {
        "kind": "dumbbell",
        "pairs": 3,
        "bottleneck": {
            "rate": "4Mbps",
            "delay": "10ms",
            "queue": {"kind": "acns", "limit": 30},
        },
    },
    "flows": [
        {
            "kind": "tcp",
            "name": "a",
            "src": "s0",
            "dst": "d0",
            "tcp": {"cc": "reno", "recovery": "sack", "acns": True, "dscp": 26},
        },
        {
            "kind": "tcp",
            "name": "b",
            "src": "s1",
            "dst": "d1",
            "start": 0.5,
            "tcp": {"cc": "reno", "recovery": "newreno", "ecn": True, "timestamps": False},
        },
        {"kind": "cbr", "name": "c", "src": "s2", "dst": "d2", "rate": "1Mbps", "dscp": 46},
    ],
    "trace": {"pcap": ["bottleneck", "access_s0"]},
}
FLAG_BITS = {"FIN": 0x01, "SYN": 0x02, "ACK": 0x10, "ECE": 0x40, "CWR": 0x80}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    out = tmp_path_factory.mktemp("pcap")
    r = ccsim.run(SCENARIO)
    r.save(out, figures=False)
    return r, out / "pcap"


def test_one_file_per_direction_named_after_it(saved):
    r, d = saved
    assert sorted(p.name for p in d.iterdir()) == [
        "access_s0-left-s0.pcap",
        "access_s0-s0-left.pcap",
        "bottleneck-left-right.pcap",
        "bottleneck-right-left.pcap",
    ]
    # The pcap links are traced in the packet table too.
    assert set(r.packets["link"]) == {"bottleneck", "access_s0"}


def _sent(r, link, frm):
    p = r.packets
    return p[(p["event"] == "-") & (p["link"] == link) & (p["from"] == frm)]


@pytest.mark.parametrize(
    "link,frm,to", [("bottleneck", "left", "right"), ("bottleneck", "right", "left")]
)
def test_headers_read_back_as_the_trace_says(saved, link, frm, to):
    r, d = saved
    rows = _sent(r, link, frm)
    pkts = scapy_all.rdpcap(str(d / f"{link}-{frm}-{to}.pcap"))
    assert len(pkts) == len(rows) > 1000
    flows = r.flows.set_index("flow")
    addr = {}
    seen = {"cmi": 0, "cmt": 0, "sack": 0, "ts": 0, "ce": 0}
    for pkt, row in zip(pkts, rows.itertuples(index=False)):
        ip = pkt[scapy_all.IP]
        # Nanosecond timestamps.
        assert abs(float(pkt.time) - row.time_s) < 1e-9
        assert ip.tos == (row.dscp << 2) | row.ecn
        assert ip.id == row.uid % 65536
        assert bool(ip.flags.evil) == bool(row.cmi) and ip.flags.DF
        seen["cmi"] += row.cmi
        seen["ce"] += row.ecn == 3
        f = flows.loc[row.flow]
        src, dst = (f["src"], f["dst"]) if row.kind != "ack" else (f["dst"], f["src"])
        # One address per node, whichever packet names it.
        assert addr.setdefault(src, ip.src) == ip.src and addr.setdefault(dst, ip.dst) == ip.dst
        # Ports: the sender's 1024 + the flow's index, the receiver's 5001 (TCP), 5002 (UDP).
        port = 1024 + list(flows.index).index(row.flow)
        if row.kind == "udp":
            u = pkt[scapy_all.UDP]
            assert (u.sport, u.dport) == (port, 5002)
            assert len(u.payload) == row.payload and ip.len == 28 + row.payload
            continue
        t = pkt[scapy_all.TCP]
        assert (t.sport, t.dport) == ((port, 5001) if row.kind == "tcp" else (5001, port))
        names = set(filter(None, row.flags.split(",")))
        assert (t.seq, t.ack, t.window) == (row.seq, row.ack, row.window)
        assert int(t.flags) == sum(FLAG_BITS[n] for n in names - {"CMT"})
        assert t.reserved == (1 if "CMT" in names else 0)
        seen["cmt"] += "CMT" in names
        assert ip.len == 20 + t.dataofs * 4 + row.payload
        opts = dict((k, v) for k, v in t.options if k != "NOP")
        if "SYN" in names:
            assert opts["MSS"] == 1448 and "WScale" in opts
        if "Timestamp" in opts:
            seen["ts"] += 1
            assert f"TS val {opts['Timestamp'][0]} ecr {opts['Timestamp'][1]}" in row.options
        else:
            assert "TS val" not in row.options
        if "SAck" in opts:
            seen["sack"] += 1
            edges = opts["SAck"]
            blocks = "".join(f"{{{a}:{b}}}" for a, b in zip(edges[::2], edges[1::2]))
            assert blocks in row.options
    if frm == "left":  # data of the three flows
        assert len(addr) == 6 and seen["cmi"] > 0 and seen["ts"] > 0 and seen["ce"] > 0
    else:  # the two TCP flows' ACKs
        assert len(addr) == 4 and seen["cmt"] > 0 and seen["sack"] > 0


def _tshark_count(path, field):
    out = subprocess.run(
        ["tshark", "-n", "-r", str(path), "-Y", field, "-T", "fields", "-e", "frame.number"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return len(out.split())


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_finds_the_retransmissions_and_duplicate_acks_ccsim_counted(saved):
    r, d = saved
    # On the sender's own link every segment it sent shows once: Wireshark calls a segment
    # sent again a retransmission, or out of order when it follows a later one closely.
    resent = "tcp.analysis.retransmission or tcp.analysis.out_of_order"
    retx = r.flows.set_index("flow").loc["a", "retransmits"]
    assert retx > 10
    assert _tshark_count(d / "access_s0-s0-left.pcap", resent) == retx
    # Duplicate ACKs reaching the sender: ACKs (not the SYN-ACK) repeating the one before.
    acks = _sent(r, "access_s0", "left")
    acks = acks[(acks["kind"] == "ack") & ~acks["flags"].str.contains("SYN")]
    dup = int((acks["ack"].diff() == 0).sum())
    assert dup > 10
    assert _tshark_count(d / "access_s0-left-s0.pcap", "tcp.analysis.duplicate_ack") == dup
    # No malformed packet anywhere.
    for path in d.iterdir():
        assert _tshark_count(path, "_ws.malformed or _ws.expert.severity >= error") == 0


def test_no_pcap_without_trace_pcap(tmp_path):
    r = ccsim.run({**SCENARIO, "duration": 1, "trace": {}})
    assert r.write_pcaps(tmp_path) == []
    r.save(tmp_path / "out", figures=False)
    assert not (tmp_path / "out" / "pcap").exists()


def test_unknown_pcap_link_is_refused_by_name():
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate({**SCENARIO, "trace": {"pcap": ["core"]}})
    assert e.value.path == "trace.pcap[0]" and "bottleneck" in e.value.message
