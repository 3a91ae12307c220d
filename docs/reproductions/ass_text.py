"""The words of the paper 001 report (``ass_report.py`` fills them in): the setup table and
the fixed prose with placeholders. Every number in them comes from the runs."""

from __future__ import annotations

# The setup table of the report: (item, the paper, ccsim, why). Placeholders are filled in by
# write_report.
SETUP = [
    (
        "non-bottleneck links", "rate not given, 10 ms", "100 Mb/s, 10 ms",
        "must only exceed the bottleneck; then only the n1→n2 queue fills (checked: the other "
        "queues saw {queue_check} over the whole grid)",
    ),
    (
        '"IFQ"', "5 … 200 packets, DropTail", "DropTail `limit` = IFQ − 1 on every link",
        '"IFQ" on wired ns-2 links is the link queue\'s `limit_`; ccsim\'s `limit` counts '
        "waiting packets, ns-2's `limit_ N` holds N − 1 of them",
    ),
    (
        "receiver window", "not given (ns-2 `window_` 20)",
        "1000 packets (`rwnd` 10⁶ B), initial ssthresh 1000",
        "with `window_` 20 the window could never reach 25, 50, 75 or 100 and the four "
        "algorithms would differ only below 20; the paper's thresholds and its LSS at 100 only "
        "make sense with a large `window_`. ns-2's `reset()` makes the initial ssthresh "
        "`window_`",
    ),
    (
        "LSS", "max_ssthresh 100", "`slow_start = {{kind, max_ssthresh = 100}}`",
        "ns-2 sets ssthresh to min(`window_`, max_ssthresh) and applies LSS in its avoidance "
        "branch until the first loss; ccsim keeps slow-starting above 100 with RFC 3742's +1/K "
        "per ACK: the same growth",
    ),
    (
        "larger IW off", '"cwnd of 1" (section 2.1)', "2 segments (ns-2.35 `windowInit_` 2)",
        "the paper ran ns-2.35, whose default is 2; its text describes textbook slow start. "
        "ns-2's first round trip of one packet (`syn_`, `delay_growth_`) is not modelled. The "
        "[IW 1 check](#initial-window-1-instead-of-2) shows what 1 changes",
    ),
    (
        "larger IW on", "RFC 3390", '`initial_window = "rfc3390"`: 4 segments of 1000 B',
        "RFC 3390's min(4·MSS, max(2·MSS, 4380 B))",
    ),
    (
        "20 % loss", '"20 % traffic losses" between n1 and n2',
        "Bernoulli p = 0.2 on n1→n2 (data); ACKs are not lost",
        "an ns-2 `lossmodel` sits on one direction of a link; the paper does not say which, "
        "and only the data direction matters much",
    ),
    (
        "ASS", "increments per ACK; decrease factors in section 5",
        "per ACK, by the window before the ACK; on any loss (fast retransmit or timeout) with "
        "cwnd < 100, ssthresh = cwnd ÷ 4, 3 or 2 by the window at the loss (as "
        "[design.md](../design.md#advanced-slow-start) fixes it)",
        "the paper does not say whether the factors apply outside slow start; here they apply "
        "to every loss below 100",
    ),
    (
        "throughput", "plotted over time",
        "goodput: unique payload bytes delivered ÷ 250 s (tables); goodput per {tput_bin} bin "
        "(figures)",
        "payload with duplicates (`throughput_bps`) is at most {dup_pct:.1f} % higher, under "
        "20 % loss",
    ),
    (
        "RTT sampling", "ns-2 (`timestamps_` false)", "`timestamps = false` (the ns2 profile's)",
        "as the paper; no RTT sample from an ACK that covers a retransmitted segment. The grid "
        "with timestamps is [compared below](#rtt-sampling-with-and-without-timestamps)",
    ),
    (
        "runs", "one per configuration",
        "{n_seeds} seeds; {deterministic}",
        "the seeds only matter for the random loss",
    ),
]  # fmt: skip


def setup_table(**values) -> str:
    lines = ["| item | paper | ccsim | why |", "| --- | --- | --- | --- |"]
    for row in SETUP:
        lines.append("| " + " | ".join(c.format(**values) for c in row) + " |")
    return "\n".join(lines)


TEMPLATE = """\
# Advanced Slow Start on a 4-node chain (seed paper 001)

Reproduction of I. Petrov and T. Janevski, *Novel Slow Start Algorithm*, International
Journal of Hybrid Information Technology 6(5), 2013.

{provenance}

**Regenerate everything** (sweeps, figures, this file) from the repository root:

```sh
python docs/reproductions/ass.py            # --workers N for more processes
```

The sweeps are resumable (`results/ass-*/`, git-ignored): a rerun computes only the points not
on disk, then redraws the figures and rewrites this file. The grid alone is
`ccsim sweep scenarios/ass-sweep.toml --workers 1`.

## Summary

- **Over 250 s the slow-start rule hardly changes mean throughput.** Without loss the four
  algorithms are within {spread10:.2f} % of each other at 10 Mb/s, and within
  {spread03_big:.2f} % at 0.3 Mb/s with IFQ 25 or more. At 10 Mb/s, after the first second
  every loss happens at a window of 50 or more, where all four halve; at 0.3 Mb/s a queue of
  25 or more keeps the 3-packet pipe full whatever the cut.
- **ASS helps only where the window stays small:** at 0.3 Mb/s with IFQ 5 and 15 (up to
  {gain03:.1f} % more than classic slow start), and under 20 % random loss, where
  {loss_gain}. {loss_apart}
- **{loss_hold}:** the IFQ and the initial window do not matter, algorithms 3 and 4 coincide,
  and {lss_last}. {loss_contra}
- **The paper's rankings for the lossless runs do not hold.** The lossless runs are
  deterministic, so each was replicated with {jitter} of send jitter ({n_seeds} seeds) and
  every pair of algorithms tested on its own (95 % interval of the per-seed difference). Over
  250 s ccsim finds ties where the paper ranks: of the {n_lossless_pairs} lossless pairs the
  paper orders, ccsim orders {split250_tested} (same/tie/opposite). Over the first 5 s it
  orders {split5_same} the same way and {split5_opp} the other way ({split5_tested}); one
  trajectory per case without jitter gave {split5_plain}, and seed by seed the jittered runs
  give {split5_seed} (mean ± 95 % interval over the seeds).
- **RTT sampling, a ccsim bug this reproduction found, now fixed.** Without TCP timestamps
  ccsim used to take RTT samples that spanned a timeout; under 20 % loss they drove the RTO to
  its 60 s maximum and cut goodput several-fold, and the first version of this report ran the
  grid with timestamps to avoid it. ccsim now applies Karn's rule to the whole ACK (commit
  e45444c), and the grid runs without timestamps, as ns-2's TCP SACK agent does. {ts_verdict}:
  with timestamps the 20 % loss runs deliver {ts_rel_lo:+.1f} to {ts_rel_hi:+.1f} % more, and
  {ts_rank} ([details](#rtt-sampling-with-and-without-timestamps)).

## What the paper did

One TCP SACK flow crosses a chain n0-n1-n2-n3 whose n1-n2 link is the bottleneck: 0.3 Mb/s in
the first scenario, 10 Mb/s in the second. Every link has a 10 ms delay, queues are DropTail
with an "IFQ" of 5, 15, 25, 50, 100 or 200 packets, Limited Slow-Start (RFC 3742) runs with
max_ssthresh 100, the larger initial window (RFC 3390) is off or on, and optionally 20 % of the
packets are lost at random on n1-n2; ns-2.35, 250 s. Four slow-start rules are compared:
algorithm 1, classic slow start (with LSS above 100), and the paper's Advanced Slow Start
algorithms 2-4, which add more than one segment per ACK while the window is small and divide it
by more than 2 on a loss there:

| algorithm | ccsim `slow_start` | +3 per ACK, loss ÷4 | +2, ÷3 | +1, ÷2 | +0.5, ÷2 | ≥ 100 |
| --- | --- | --- | --- | --- | --- | --- |
| 1 | `limited` | | | < 100 | | LSS, ÷2 |
| 2 (ASS) | `ass2` | < 25 | [25, 50) | [50, 75) | [75, 100) | LSS, ÷2 |
| 3 | `ass3` | | < 25 | [25, 100) | | LSS, ÷2 |
| 4 | `ass4` | | < 50 | [50, 100) | | LSS, ÷2 |

The paper reports only cwnd and throughput *figures* (Figures 4-99), which are not in the text
copy; its results are the rankings it states in the text. There is no table of numbers to
compare with, so this report gives ccsim's numbers and sets the paper's stated rankings beside
ccsim's.

## Setup, and where the paper is ambiguous

Scenario files: [`scenarios/ass-chain.toml`](../../scenarios/ass-chain.toml) (one
configuration) and [`scenarios/ass-sweep.toml`](../../scenarios/ass-sweep.toml) (the grid:
2 rates × 2 loss rates × 2 initial windows × 6 IFQs × 4 algorithms = 192 configurations,
{n_seeds} seeds each, {n_points} runs of 250 s). The `ns2` defaults profile supplies what the
paper leaves to ns-2.35: 1000-byte segments with 40 bytes of headers, no delayed ACKs (the
plain `TCPSink/Sack1`), ns-2's ACK counting (one increment per ACK), a 200 ms minimum RTO,
initial RTO 3 s, Limited Transmit.

{setup_table}

## Mean throughput per configuration

Mean goodput over 250 s in kb/s (the most a 0.3 Mb/s link can carry is 288.5 kb/s of payload,
a 10 Mb/s link 9615 kb/s); ± is the 95 % interval over the {n_seeds} seeds, left out where the
seeds agree. Bold: the best of the four algorithms, per initial window.

{tables}

The slow-start rule hardly matters over 250 s. At 10 Mb/s without loss the four algorithms are
within {spread10:.2f} % of each other in every configuration: slow start ends within the first
second, and from then on the window at every loss is 50 segments or more (the path holds about
73 packets plus the queue), where all four halve, so their congestion avoidance is identical.
At 0.3 Mb/s the path holds about 3 packets (89 ms × 0.3 Mb/s), so the window is set by the
queue: with IFQ 100 and 200 the first overshoot passes 100, all four run LSS and then halve
from above 50, and the results are {same_big}. Differences remain only where the window stays
small: at 0.3 Mb/s with IFQ 5 (LSS {g03_5_lss:.1f}, the best ASS {g03_5_ass:.1f} kb/s) and
IFQ 15 (LSS {g03_15_lss:.1f}, ASS2 {g03_15_ass2:.1f} kb/s), where the window keeps collapsing
({to_ifq5} timeouts in 250 s at IFQ 5, {to_ifq15} at IFQ 15) and ASS's +2 or +3 per ACK refills
the small pipe after each collapse sooner than classic slow start, which outweighs its ÷3 or
÷4; and under 20 % loss, where the window never leaves the ASS ranges (below).

### Start-up phase

The paper's statements are mostly about the start-up phase of its figures. Goodput over the
first 5 s (the same runs stopped at 5 s; lossless, so one number each):

{startup_tables}

The same start-ups replicated: {jitter} of send jitter (ns-2's `overhead_`: each segment waits
a uniform time up to {jitter} before it leaves, drawn from the seeded flow stream), {n_seeds}
seeds, ± the 95 % Student-t interval. Jitter and not a random start time: a lone flow started
later runs the same trajectory later. Started at offsets drawn from [0, 100 ms) (a `numpy`
generator seeded with each seed), its goodput varies by at most {off250:.2f} % over 250 s (IW
off, IFQ 15 at 0.3 Mb/s and 50 at 10 Mb/s, each algorithm); over the first 5 s by up to
{off5:.1f} %, but only because a later start leaves less of the same trajectory inside the
5 s. Send jitter instead perturbs every packet's arrival phase at the queue. 1 ms is
below the 10 ms link delays and about one packet time at 10 Mb/s (at 0.3 Mb/s a packet takes
28 ms, and the jitter changes little there).

{jitter_tables}

Here the algorithms do differ, in both directions (the worst start delivers up to {spread5:.0f}
% less than the best): ASS2's steep start (+3 per ACK) overshoots a small queue by more and then
divides by 3 or 4, which at 0.3 Mb/s with IFQ 15 and 25 ends in timeouts (first 5 s, IW off: LSS
{s03_15_lss:.1f} kb/s with {to5_15_lss} against ASS2 {s03_15_ass2:.1f} kb/s with {to5_15_ass2}
at IFQ 15, {s03_25_lss:.1f} with {to5_25_lss} against {s03_25_ass2:.1f} with {to5_25_ass2} at
IFQ 25), while at 10 Mb/s with large queues the faster ramp pays (IFQ 200: LSS
{s10_200_lss:.0f}, ASS2 {s10_200_ass2:.0f} kb/s) and with IFQ 5 it does not (LSS
{s10_5_lss:.0f}, ASS3 {s10_5_ass3:.0f} kb/s).

## The paper's rankings against ccsim's

For each case the paper describes, its ranking (as we read the text; "=" where it says the
curves overlap) next to ccsim's ranking by mean goodput over 250 s and over the first 5 s.
Lossless cases are ranked on the runs with {jitter} of send jitter, those with 20 % loss on the
grid; {n_seeds} seeds each. Each pair of algorithms is tested on its own: one is ahead of the
other when the mean of their per-seed differences (all algorithms see the same seeds, so the
comparison is paired) exceeds both {tie:.1f} % and the half-width of its 95 % Student-t
interval; otherwise they tie. The ranking shown puts a ">" between two groups only where every
algorithm above is ahead of every one below. *same/tie/opp.* counts, among the pairs the paper
orders strictly, those ccsim's pairwise tests order the same way, tie, or order the other way;
*best* says whether the algorithms no other is ahead of are the paper's best group (yes),
overlap it (tie) or not (no).
Where the paper pools all IFQ values (20 % loss), ccsim's ranking is at IFQ 50; the other
IFQ values give nearly the same numbers (next section).

{ranking}

**Totals** over the {n_claims} cases: of the {n_pairs} pairs the paper orders, ccsim orders
{p250} (same/tie/opposite) by the 250 s mean and {p5} by the first 5 s; ccsim's best group
is the paper's / overlaps it / differs in {b250} cases (250 s) and {b5} (5 s). Of the
lossless pairs alone: {split250_tested} (250 s) and {split5_tested} (5 s); one trajectory per
case without jitter, as the first version of this report counted them (with the same
pairwise rule), gives {split250_plain} and {split5_plain}, and the jittered runs seed by seed
{split250_seed} and {split5_seed} (mean ± 95 % interval over the {n_seeds} seeds).

What ccsim confirms:

- **With 20 % loss the IFQ does not matter** (paper, sections 4.1, 4.2 and 5): each
  algorithm's mean varies by at most {spread_03:.2f} % (0.3 Mb/s) and {spread_10:.2f} %
  (10 Mb/s) across the six IFQ values: at 20 % loss the window stays so small that even the
  5-packet queue hardly ever overflows ({ovf5:.1f} overflow drops per run, against
  {rnd5:.0f} random losses).
  **Nor does the larger initial window** (at most {iwgap_03:.1f} % and {iwgap_10:.1f} %).
- **With 20 % loss algorithms 3 and 4 overlap**: they are {same34_03} at 0.3 Mb/s and
  {same34_10} at 10 Mb/s, because the window never reaches 25, below which both add 2 per ACK
  and divide by 3.
- **{loss_beat}** (paper, 10 Mb/s: "poorest
  throughput ... algorithm 1"): per-seed differences at IFQ 50, IW off: ASS2 − LSS
  {d21_10:+.1f} ± {h21_10:.1f} kb/s and ASS3 − LSS {d31_10:+.1f} ± {h31_10:.1f} kb/s at 10 Mb/s;
  {d21_03:+.1f} ± {h21_03:.1f} and {d31_03:+.1f} ± {h31_03:.1f} kb/s at 0.3 Mb/s. The paper's
  ordering between 2 and 3 = 4 (2 first at 10 Mb/s, 3 = 4 first at 0.3 Mb/s): {d23_text};
  ASS2 − ASS3 = {d23_10:+.1f} ± {h23_10:.1f} kb/s (10 Mb/s), {d23_03:+.1f} ± {h23_03:.1f} kb/s
  (0.3 Mb/s).

What ccsim does not confirm:

- **The lossless rankings.** Over 250 s ccsim finds no difference worth the name at 10 Mb/s
  and at 0.3 Mb/s with IFQ ≥ 25, where the paper ranks all four algorithms, often with ASS2
  first. The paper's rankings there must come from the start-up part of its figures, or from
  differences a figure shows but a mean does not. Over the first 5 s ccsim does rank them, but
  {split5_words} (the totals above).
  ccsim's best start is the paper's in {n_best5} lossless cases: {best5}. Of the
  {n_first2} lossless cases where the paper ranks ASS2 first, ASS2 is ccsim's *worst* start in
  {n_ass2_worst}: {ass2_worst}.
- **The conclusion that ASS2 is the best overall.** In ccsim it is never more than
  {ass2_behind:.2f} % behind the best over 250 s. Without loss it is alone in front in only
  {n_ass2_alone_250} of the {n_lossless_cases} configurations ({ass2_alone_250}); with 20 % loss
  in {n_ass2_alone_loss} of {n_loss_cases} (above). Its start-up (first 5 s) is the best of the
  four, alone, in {n_ass2_alone_5} lossless configurations: {ass2_alone_5}.
- **At 0.3 Mb/s the comparison is nearly empty by construction.** The bandwidth-delay product
  is about 3 packets, so every rule fills the link within two round trips; what a slow-start
  rule changes is only how far it overshoots the queue and how hard it then cuts.

## RTT sampling with and without timestamps

The grid runs as ns-2's TCP SACK agent does, without TCP timestamps: an ACK that covers no
retransmitted segment gives an RTT sample, the time since the newest segment it covers was sent,
and an ACK that covers a retransmitted one gives none. This reproduction found that ccsim did
not do so. Before commit e45444c it skipped the sample only if the *newest* segment an ACK
covered had been retransmitted. After a timeout the ACK for the retransmitted hole also covers
segments sent before the timeout, so the sample was the whole RTO wait plus the RTT; each such
sample lengthened the next RTO and the next sample, and under 20 % loss the RTO sat at its 60 s
maximum for long stretches. ns-2 never takes these samples (it times one segment per round trip
and `reset_rtx_timer()` cancels the measurement at every timeout and fast retransmit), nor does
Linux (`FLAG_RETRANS_DATA_ACKED`). The first version of this report therefore ran the grid with
`timestamps = true` as a workaround. Commit e45444c applies Karn's rule to the whole ACK, as
above (`crates/ccsim/src/tcp/sender.rs`, with the test
`no_rtt_sample_spans_a_timeout_without_timestamps`), and the workaround is gone.

To show what timestamps change now, the grid was run again with `timestamps = true` (headers
stay at ns-2's 40 bytes; `results/ass-sweep-timestamps`). With timestamps a sample comes from
every ACK that advances the window, including those after a retransmission, from the echoed
timestamp. Mean goodput with 20 % loss at IFQ 50 (the difference is per seed, with its 95 %
interval):

{ts_table}

Over all {ts_n_loss} configurations with 20 % loss, timestamps change mean goodput by
{ts_rel_lo:+.1f} to {ts_rel_hi:+.1f} %; {ts_sig}, and {ts_rank}. Neither grid has the old
problem: the largest RTT sample of any 20 % loss run is {rtt_max_nots:.2f} s without timestamps
and {rtt_max_ts:.2f} s with them. The difference that remains is the number of samples. Under
20 % loss many ACKs cover a retransmitted segment, so without timestamps Karn's rule leaves
{samples_nots:.0f} RTT samples per run against {samples_ts:.0f} with them ({samples_fewer:.0f} %
fewer), and ccsim (as RFC 6298, Linux, and ns-2 with its `t_backoff_`) keeps a timeout's doubled
RTO until the next valid sample. The ACKs of the retransmissions after a timeout give no sample
without timestamps, so consecutive timeouts keep doubling the RTO until an ACK covers only
segments sent once. At IFQ 50 (each algorithm, all
seeds) the RTO in force averages {rto_nots_03:.1f} s without timestamps against
{rto_ts_03:.1f} s with them at 0.3 Mb/s, and {rto_nots_10:.1f} s against {rto_ts_10:.1f} s at
10 Mb/s; at its largest it reaches {rtomax_nots_03:.1f} and {rtomax_nots_10:.1f} s without
timestamps, {rtomax_ts_03:.1f} and {rtomax_ts_10:.1f} s with them. Hence fewer timeouts,
{to_nots:.0f} per run against {to_ts:.0f}, each followed by a longer wait, and less goodput.
ns-2 without timestamps times only one segment per round trip and drops that measurement at
every timeout and fast retransmit, so of the two settings the one without timestamps is the
nearer to the paper's runs. One difference remains: ns-2 times the first new segment sent after
a retransmission and keeps that sample even when the ACK that covers it also covers the
retransmitted one, where ccsim takes no sample from such an ACK; after a timeout ccsim may
therefore keep the backed-off RTO a little longer than ns-2 would.

Without loss the two grids differ by at most {ts_rel0:.2f} % in any configuration.
{ts_lossless}

## Initial window 1 instead of 2

The paper's section 2.1 starts slow start at one segment; ns-2.35's default is 2. The lossless
grid with `initial_window = 1` (`results/ass-iw1`), ranked as above:

{iw1_table}

Over 250 s {iw1_250}; in the first 5 s {iw1_5} (the first loss comes one round trip later).
Against the paper's lossless rankings without the larger initial window, the first-5 s order
agrees / ties / disagrees on {iw2_pairs} pairs with an initial window of 2 and {iw1_pairs} with
1.

## Figures

One run per configuration (seed 1), the four algorithms overlaid, one panel per IFQ, drawn
with `ccsim.plot.plot_series`. The lossless cwnd figures are repeated zoomed to the start-up
(3 s at 10 Mb/s, 30 s at 0.3 Mb/s).

{figures}

## Runtime

| sweep | points | computed this time | simulation time (sum) | elapsed | computed in full |
| --- | ---: | ---: | ---: | ---: | ---: |
{timings}

{full_run}
"""
