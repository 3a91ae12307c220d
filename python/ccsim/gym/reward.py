"""Rewards of :mod:`ccsim.gym`: a function of one monitor interval's
:class:`~ccsim.gym.IntervalStats`."""

from __future__ import annotations

from .monitor import IntervalStats


def aurora_reward(
    stats: IntervalStats,
    *,
    throughput: float = 10.0,
    latency: float = 1000.0,
    loss: float = 2000.0,
    scale: float = 1e-3,
) -> float:
    """Aurora's throughput-delay-loss utility (Jay et al., "A Deep Reinforcement Learning
    Perspective on Internet Congestion Control", ICML 2019), in Aurora's units:

        scale · (10 · delivered segments per second − 1000 · mean RTT in seconds
                 − 2000 · loss fraction)

    with ``scale = 1e-3`` as Aurora's released environment (PCC-RL, ``REWARD_SCALE``). Aurora
    counts 1500-byte packets; here a packet is one of the flow's segments (``mss`` bytes of
    payload, 1448 by default). The mean RTT is the interval's (the smoothed RTT when it had no
    sample); the loss fraction is :attr:`IntervalStats.loss_fraction`, segments newly marked
    lost per segment of new data sent (PCC-RL's released environment divides by the packets
    acknowledged or lost instead, ``sender_obs.py``'s loss ratio; a callable reward may do
    that). The keywords change the coefficients (``functools.partial``)."""
    return scale * (
        throughput * stats.delivered_pps - latency * stats.rtt_mean_s - loss * stats.loss_fraction
    )
