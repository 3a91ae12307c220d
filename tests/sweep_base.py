"""The small scenario and grid the sweep end-to-end tests share."""


def base(duration=2):
    """Two pairs: a TCP flow and a CBR flow; random loss so that seeds change the outcome."""
    return {
        "name": "sweep-test",
        "duration": duration,
        "seed": 3,
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "bottleneck": {
                "rate": "50Mbps",
                "delay": "10ms",
                "queue": {"kind": "droptail", "limit": 50},
                "loss": {"kind": "bernoulli", "p": 0.002},
            },
        },
        "flows": [
            {"kind": "tcp", "name": "bulk", "src": "s0", "dst": "d0"},
            {"kind": "cbr", "name": "video", "src": "s1", "dst": "d1", "rate": "5Mbps"},
        ],
    }


AXES = {
    "topology.bottleneck.queue.limit": [10, 100],
    "flows[kind=tcp].tcp.recovery": ["newreno", "sack"],
}
