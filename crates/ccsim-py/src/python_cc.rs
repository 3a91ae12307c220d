//! Congestion control written in Python (`ccsim.CongestionControl`), as an external algorithm
//! of the core (`ccsim::tcp::cc::external`).
//!
//! Each hook the Python class defines is called with the GIL taken for the call (the run
//! itself holds none), with a `Connection` view of the sender's state and, for ACKs, an `Ack`
//! (or, for `cong_control`, a `RateSample`). The view's `cwnd`, `ssthresh`, `pacing_rate` and
//! `app_limited` are written back after the hook. A hook that raises, or leaves the window not
//! a positive finite number, ends the algorithm's part in the run: the failure (hook, flow,
//! simulated time, exception) is kept for the Python runner, which stops at the end of the
//! current step and raises it; meanwhile the hooks are no longer called.
//!
//! Hooks the class does not define are not called at all (`Hooks`), so an algorithm with only
//! `ssthresh` and `cong_avoid` pays for none of the others: without `cong_control` the sender
//! keeps no delivery-rate records for it, and without `needs_pacing` it is not paced (unless
//! the scenario asks, and then at Linux's rate).

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use ccsim::tcp::cc::{
    cong_avoid_ai, slow_start, AckSample, CaEvent, CaState, CongestionControl, ExternalAlgorithm,
    ExternalFactory, Feedback, RateSample as CoreSample, TcpState,
};

use crate::rate_sample::RateSample;

/// The first failure of a Python hook in a run.
pub struct Failure {
    pub hook: &'static str,
    pub flow: String,
    pub time_s: f64,
    pub err: PyErr,
}

/// Shared by a simulation and its Python algorithms.
pub type FailureSlot = Arc<Mutex<Option<Failure>>>;

/// The sender's state as a Python hook sees it: `cwnd`, `ssthresh` (segments), `pacing_rate`
/// (bytes per second) and `app_limited` may be set, the rest is read-only.
#[pyclass(module = "ccsim._core")]
pub struct Connection {
    st: TcpState,
    flow: String,
}

fn ca_state_name(s: CaState) -> &'static str {
    match s {
        CaState::Open => "open",
        CaState::Cwr => "cwr",
        CaState::Recovery => "recovery",
        CaState::Loss => "loss",
    }
}

#[pymethods]
impl Connection {
    /// Congestion window, segments.
    #[getter]
    fn cwnd(&self) -> f64 {
        self.st.cwnd
    }
    #[setter]
    fn set_cwnd(&mut self, v: f64) {
        self.st.cwnd = v;
    }
    /// Slow-start threshold, segments.
    #[getter]
    fn ssthresh(&self) -> f64 {
        self.st.ssthresh
    }
    #[setter]
    fn set_ssthresh(&mut self, v: f64) {
        self.st.ssthresh = v;
    }
    /// Segment size, bytes.
    #[getter]
    fn mss(&self) -> u32 {
        self.st.mss
    }
    /// Smoothed RTT, seconds (0 before the first sample).
    #[getter]
    fn srtt(&self) -> f64 {
        self.st.srtt.as_secs_f64()
    }
    /// Smallest RTT sample so far, seconds (infinite before the first).
    #[getter]
    fn min_rtt(&self) -> f64 {
        if self.st.min_rtt == ccsim::time::SimTime::MAX {
            f64::INFINITY
        } else {
            self.st.min_rtt.as_secs_f64()
        }
    }
    /// Segments sent and not cumulatively acknowledged.
    #[getter]
    fn in_flight(&self) -> u64 {
        self.st.flight
    }
    /// Oldest unacknowledged segment and one past the highest sent, in segments.
    #[getter]
    fn snd_una(&self) -> u64 {
        self.st.snd_una
    }
    #[getter]
    fn snd_nxt(&self) -> u64 {
        self.st.snd_nxt
    }
    /// Receiver window, segments (infinite when unlimited).
    #[getter]
    fn rwnd(&self) -> f64 {
        self.st.rwnd
    }
    /// Loss-recovery state: "open", "cwr", "recovery" or "loss" (Linux's `tcp_ca_state`).
    #[getter]
    fn ca_state(&self) -> &'static str {
        ca_state_name(self.st.ca_state)
    }
    /// Simulated time, seconds.
    #[getter]
    fn now(&self) -> f64 {
        self.st.now.as_secs_f64()
    }
    /// Simulated time in the core's whole nanoseconds: for arithmetic on times that must
    /// give the core's own results (seconds are that divided by 10^9).
    #[getter]
    fn now_ns(&self) -> u64 {
        self.st.now.as_nanos()
    }
    /// Pacing rate, bytes per second (infinite: unpaced). It paces the flow when the class
    /// sets `needs_pacing = True` (and the scenario's `pacing` is not "off"); otherwise a paced
    /// sender sets it by Linux's rule after every ACK.
    #[getter]
    fn pacing_rate(&self) -> f64 {
        self.st.pacing_rate
    }
    #[setter]
    fn set_pacing_rate(&mut self, v: f64) -> PyResult<()> {
        if v.is_nan() || v <= 0.0 {
            return Err(PyValueError::new_err(format!(
                "pacing_rate = {v}: the pacing rate must be a positive number of bytes per \
                 second (math.inf for unpaced)"
            )));
        }
        self.st.pacing_rate = v;
        Ok(())
    }
    /// Segments delivered (SACKed or cumulatively acknowledged) so far (Linux `tp->delivered`):
    /// counted for an algorithm that defines `cong_control` (or a flow whose `delivery_rate`
    /// is traced), 0 otherwise.
    #[getter]
    fn delivered(&self) -> u64 {
        self.st.delivered
    }
    /// ACKs that carried ECN-Echo before the one being handled (RFC 3168; `ack.ece` says
    /// whether this one does).
    #[getter]
    fn ecn_echoes(&self) -> u64 {
        self.st.ecn_echoes
    }
    /// Segments marked lost so far (Linux `tp->lost`), counted as `delivered` is.
    #[getter]
    fn lost(&self) -> u64 {
        self.st.lost
    }
    /// Nonzero while the connection is application-limited: the delivered count at which that
    /// ends (Linux `tp->app_limited`); 0 when it is not. An algorithm may set it to keep the
    /// coming samples marked application-limited (BBR in ProbeRTT).
    #[getter]
    fn app_limited(&self) -> u64 {
        self.st.app_limited
    }
    #[setter]
    fn set_app_limited(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        let Ok(n) = v.extract::<u64>() else {
            return Err(PyValueError::new_err(format!(
                "app_limited = {}: expected a whole number of segments, 0 or more (0: not \
                 application-limited)",
                v.repr()
                    .map(|r| r.to_string())
                    .unwrap_or_else(|_| "?".into())
            )));
        };
        self.st.app_limited = n;
        Ok(())
    }
    /// The flow's name.
    #[getter]
    fn flow(&self) -> &str {
        &self.flow
    }
    /// Whether cwnd is below ssthresh.
    #[getter]
    fn in_slow_start(&self) -> bool {
        self.st.in_slow_start()
    }
    /// Linux's `tcp_slow_start`: grows cwnd by the connection's slow-start rule for `acked`
    /// segments, not past ssthresh; returns what is left of `acked` for congestion avoidance.
    fn slow_start(&mut self, acked: f64) -> f64 {
        slow_start(&mut self.st, acked)
    }
    /// Linux's `tcp_cong_avoid_ai`: one segment per `w` segments acknowledged.
    fn cong_avoid_ai(&mut self, w: f64, acked: f64) {
        cong_avoid_ai(&mut self.st, w, acked)
    }
}

/// What one ACK that acknowledged new data tells the algorithm.
#[pyclass(module = "ccsim._core", frozen)]
pub struct Ack {
    /// Segments newly acknowledged by the cumulative ACK.
    #[pyo3(get)]
    segments: u64,
    /// Segments to count for window growth (at most 1 under ns-2's per-ACK counting).
    #[pyo3(get)]
    acked: f64,
    /// The RTT this ACK measured, seconds, if it gave a valid sample (Karn's rule).
    #[pyo3(get)]
    rtt: Option<f64>,
    /// The same RTT in the core's whole nanoseconds.
    #[pyo3(get)]
    rtt_ns: Option<u64>,
    /// The ACK carried ECN-Echo.
    #[pyo3(get)]
    ece: bool,
    /// Segments reported CE-marked since the previous ACK of new data (0 without ECN).
    #[pyo3(get)]
    ce: u64,
}

impl Ack {
    fn of(a: &AckSample) -> Ack {
        Ack {
            segments: a.segments,
            acked: a.acked,
            rtt: a.rtt.map(|t| t.as_secs_f64()),
            rtt_ns: a.rtt.map(|t| t.as_nanos()),
            ece: a.ece,
            ce: a.ce,
        }
    }
}

/// Which hooks the Python class defines (the base class's do nothing), and whether it asks to
/// be paced (its `needs_pacing`).
#[derive(Clone, Copy, Debug, Default)]
struct Hooks {
    ssthresh: bool,
    cong_avoid: bool,
    pkts_acked: bool,
    set_state: bool,
    cwnd_event: bool,
    init: bool,
    cong_control: bool,
    on_feedback: bool,
    needs_pacing: bool,
}

/// What a hook may have changed in the connection: written back to the sender after it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Written {
    cwnd: f64,
    ssthresh: f64,
    pacing_rate: f64,
    app_limited: u64,
}

impl Written {
    fn of(st: &TcpState) -> Written {
        Written {
            cwnd: st.cwnd,
            ssthresh: st.ssthresh,
            pacing_rate: st.pacing_rate,
            app_limited: st.app_limited,
        }
    }

    fn apply(self, st: &mut TcpState) {
        st.cwnd = self.cwnd;
        st.ssthresh = self.ssthresh;
        st.pacing_rate = self.pacing_rate;
        st.app_limited = self.app_limited;
    }
}

/// One flow's Python algorithm.
pub struct PyAlgorithm {
    obj: Py<PyAny>,
    factory: Py<PyAny>,
    conn: Py<Connection>,
    hooks: Hooks,
    failure: FailureSlot,
    flow: String,
}

impl std::fmt::Debug for PyAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyAlgorithm({})", self.flow)
    }
}

impl PyAlgorithm {
    /// Calls `factory(flow)` and wraps the algorithm it returns.
    fn make(
        py: Python<'_>,
        factory: &Py<PyAny>,
        flow: &str,
        failure: &FailureSlot,
    ) -> PyResult<PyAlgorithm> {
        let obj = factory.call1(py, (flow,))?;
        let names: Vec<String> = obj.call_method0(py, "_defined_hooks")?.extract(py)?;
        let has = |n: &str| names.iter().any(|x| x == n);
        let cls = obj.bind(py).get_type().name()?;
        if has("cong_control") {
            // Linux's tcp_cong_control calls cong_control instead of cong_avoid, never both:
            // a cong_avoid beside it would be dead code the author may believe runs.
            if has("cong_avoid") {
                return Err(PyValueError::new_err(format!(
                    "{cls} defines both cong_control() and cong_avoid(): an algorithm with \
                     cong_control sets its window on every ACK and cong_avoid is never called \
                     (Linux's contract); move its window growth into cong_control"
                )));
            }
        } else {
            for required in ["ssthresh", "cong_avoid"] {
                if !has(required) {
                    return Err(PyValueError::new_err(format!(
                        "{cls} defines no {required}(): a congestion control must define \
                         ssthresh() and cong_avoid() (Linux's required hooks), or \
                         cong_control()"
                    )));
                }
            }
        }
        let needs_pacing = obj.getattr(py, "needs_pacing")?;
        let Ok(needs_pacing) = needs_pacing.extract::<bool>(py) else {
            return Err(PyValueError::new_err(format!(
                "{cls}.needs_pacing = {}: expected True or False",
                needs_pacing.bind(py).repr()?
            )));
        };
        let st = TcpState::new(
            1.0,
            f64::INFINITY,
            0,
            f64::INFINITY,
            ccsim::tcp::slow_start::SlowStart::Standard,
        );
        let conn = Py::new(
            py,
            Connection {
                st,
                flow: flow.to_string(),
            },
        )?;
        Ok(PyAlgorithm {
            obj,
            factory: factory.clone_ref(py),
            conn,
            hooks: Hooks {
                ssthresh: has("ssthresh"),
                cong_avoid: has("cong_avoid"),
                pkts_acked: has("pkts_acked"),
                set_state: has("set_state"),
                cwnd_event: has("cwnd_event"),
                init: has("init"),
                cong_control: has("cong_control"),
                on_feedback: has("on_feedback"),
                needs_pacing,
            },
            failure: failure.clone(),
            flow: flow.to_string(),
        })
    }

    fn failed(&self) -> bool {
        self.failure.lock().map(|f| f.is_some()).unwrap_or(true)
    }

    fn fail(&self, hook: &'static str, st: &TcpState, err: PyErr) {
        if let Ok(mut slot) = self.failure.lock() {
            if slot.is_none() {
                *slot = Some(Failure {
                    hook,
                    flow: self.flow.clone(),
                    time_s: st.now.as_secs_f64(),
                    err,
                });
            }
        }
    }

    /// Calls hook `hook` with the connection set to `st`, and returns what the hook left in
    /// the connection (window and threshold checked; the pacing rate and `app_limited` are
    /// checked by their setters), or None where it failed (recorded).
    fn call(
        &self,
        hook: &'static str,
        st: &TcpState,
        args: impl FnOnce(Python<'_>, Py<Connection>) -> PyResult<Py<PyAny>>,
    ) -> Option<(Written, Py<PyAny>)> {
        if self.failed() {
            return None;
        }
        let out = Python::attach(|py| -> PyResult<(Written, Py<PyAny>)> {
            {
                let mut c = self.conn.borrow_mut(py);
                c.st = st.clone();
            }
            let ret = args(py, self.conn.clone_ref(py))?;
            let c = self.conn.borrow(py);
            let written = Written::of(&c.st);
            let (cwnd, ssthresh) = (written.cwnd, written.ssthresh);
            if !(cwnd.is_finite() && cwnd > 0.0) {
                return Err(PyValueError::new_err(format!(
                    "left cwnd = {cwnd}: the window must be a positive finite number of segments"
                )));
            }
            if ssthresh.is_nan() || ssthresh <= 0.0 {
                return Err(PyValueError::new_err(format!(
                    "left ssthresh = {ssthresh}: the threshold must be a positive number of \
                     segments (infinite for none)"
                )));
            }
            Ok((written, ret))
        });
        match out {
            Ok(v) => Some(v),
            Err(e) => {
                self.fail(hook, st, e);
                None
            }
        }
    }

    /// Calls a hook that may change the window, and applies what it left.
    fn call_mut(
        &self,
        hook: &'static str,
        st: &mut TcpState,
        args: impl FnOnce(Python<'_>, Py<Connection>) -> PyResult<Py<PyAny>>,
    ) {
        if let Some((written, _)) = self.call(hook, st, args) {
            written.apply(st);
        }
    }
}

impl CongestionControl for PyAlgorithm {
    fn ssthresh(&self, st: &TcpState) -> f64 {
        // Without the hook (an algorithm with cong_control may leave it out), the threshold
        // stays as it is, as BBR's `bbr_ssthresh` keeps it.
        if !self.hooks.ssthresh {
            return st.ssthresh;
        }
        // Once the algorithm has failed, Reno's halving keeps the rest of the step sane until
        // the runner stops the run.
        let fallback = (st.cwnd.min(st.rwnd) / 2.0).max(2.0);
        let obj = &self.obj;
        let out = self.call("ssthresh", st, |py, c| {
            obj.call_method1(py, "ssthresh", (c,))
        });
        let Some((_, ret)) = out else {
            return fallback;
        };
        let v = Python::attach(|py| ret.extract::<f64>(py));
        match v {
            Ok(v) if v.is_finite() && v > 0.0 => v,
            Ok(v) => {
                let msg = format!("returned {v}: expected a positive finite number of segments");
                self.fail("ssthresh", st, PyValueError::new_err(msg));
                fallback
            }
            Err(e) => {
                self.fail("ssthresh", st, e);
                fallback
            }
        }
    }

    fn cong_avoid(&mut self, st: &mut TcpState, ack: &AckSample) {
        // Not defined when cong_control is (`make`): that one sets the window instead.
        if !self.hooks.cong_avoid {
            return;
        }
        let obj = &self.obj;
        self.call_mut("cong_avoid", st, |py, c| {
            obj.call_method1(py, "cong_avoid", (c, Ack::of(ack)))
        });
    }

    fn pkts_acked(&mut self, st: &TcpState, ack: &AckSample) {
        if !self.hooks.pkts_acked {
            return;
        }
        let obj = &self.obj;
        let out = self.call("pkts_acked", st, |py, c| {
            obj.call_method1(py, "pkts_acked", (c, Ack::of(ack)))
        });
        if let Some((written, _)) = out {
            let before = Written::of(st);
            if written.cwnd != before.cwnd || written.ssthresh != before.ssthresh {
                let msg = "changed the window: pkts_acked observes (Linux's contract); \
                           window changes belong in cong_avoid (or cong_control)";
                self.fail("pkts_acked", st, PyValueError::new_err(msg));
            } else if written != before {
                let msg = "changed pacing_rate or app_limited: pkts_acked observes (Linux's \
                           contract); set them in cong_avoid or cong_control";
                self.fail("pkts_acked", st, PyValueError::new_err(msg));
            }
        }
    }

    fn set_state(&mut self, st: &mut TcpState, new: CaState) {
        if !self.hooks.set_state {
            return;
        }
        let obj = &self.obj;
        self.call_mut("set_state", st, |py, c| {
            obj.call_method1(py, "set_state", (c, ca_state_name(new)))
        });
    }

    fn cwnd_event(&mut self, st: &mut TcpState, ev: CaEvent) {
        if !self.hooks.cwnd_event {
            return;
        }
        let name = match ev {
            CaEvent::TxStart => "tx_start",
            CaEvent::Timeout => "timeout",
            CaEvent::EcnEcho => "ecn_echo",
            CaEvent::RecoveryExit => "recovery_exit",
        };
        let obj = &self.obj;
        self.call_mut("cwnd_event", st, |py, c| {
            obj.call_method1(py, "cwnd_event", (c, name))
        });
    }

    fn init(&mut self, st: &mut TcpState) {
        if !self.hooks.init {
            return;
        }
        let obj = &self.obj;
        self.call_mut("init", st, |py, c| obj.call_method1(py, "init", (c,)));
    }

    fn cong_control(&mut self, st: &mut TcpState, rs: &CoreSample) {
        // The sender calls it only when `controls_window` is true, that is when defined.
        let obj = &self.obj;
        self.call_mut("cong_control", st, |py, c| {
            obj.call_method1(py, "cong_control", (c, RateSample::of(rs)))
        });
    }

    fn controls_window(&self) -> bool {
        self.hooks.cong_control
    }

    fn on_feedback(&mut self, st: &mut TcpState, fb: &Feedback) -> bool {
        if !self.hooks.on_feedback {
            return false;
        }
        let Feedback::Xcp {
            feedback,
            admitted,
            congested,
            queue_high,
        } = *fb;
        let obj = &self.obj;
        let out = self.call("on_feedback", st, |py, c| {
            let d = pyo3::types::PyDict::new(py);
            d.set_item("kind", "xcp")?;
            d.set_item("feedback", feedback)?;
            d.set_item("admitted", admitted)?;
            d.set_item("congested", congested)?;
            d.set_item("queue_high", queue_high)?;
            obj.call_method1(py, "on_feedback", (c, d))
        });
        let Some((written, ret)) = out else {
            return false;
        };
        match Python::attach(|py| ret.extract::<bool>(py)) {
            Ok(done) => {
                written.apply(st);
                done
            }
            Err(_) => {
                let msg = "returned something other than True or False: return True if it                            set the window itself (cong_avoid is then skipped for this ACK)";
                self.fail("on_feedback", st, PyValueError::new_err(msg));
                false
            }
        }
    }

    fn wants_pacing(&self) -> bool {
        self.hooks.needs_pacing
    }

    fn wants_router_feedback(&self) -> bool {
        self.hooks.on_feedback
    }
}

impl ExternalAlgorithm for PyAlgorithm {
    fn fresh(&self) -> Box<dyn ExternalAlgorithm> {
        Python::attach(|py| {
            match PyAlgorithm::make(py, &self.factory, &self.flow, &self.failure) {
                Ok(a) => Box::new(a) as Box<dyn ExternalAlgorithm>,
                // The factory worked for this flow before; should it fail now, the failure
                // is the run's, and the copy shares this one's object.
                Err(e) => {
                    let st = self.conn.borrow(py).st.clone();
                    self.fail("__init__", &st, e);
                    Box::new(PyAlgorithm {
                        obj: self.obj.clone_ref(py),
                        factory: self.factory.clone_ref(py),
                        conn: self.conn.clone_ref(py),
                        hooks: self.hooks,
                        failure: self.failure.clone(),
                        flow: self.flow.clone(),
                    })
                }
            }
        })
    }
}

/// The core's factories for the Python factories `factories` (`factory(flow_name)` returns a
/// `ccsim.CongestionControl`), in slot order.
pub fn factories(
    factories: &Bound<'_, PyList>,
    failure: &FailureSlot,
) -> Vec<Box<ExternalFactory>> {
    factories
        .iter()
        .map(|f| {
            let f: Py<PyAny> = f.unbind();
            let failure = failure.clone();
            Box::new(move |flow: &str| {
                Python::attach(|py| PyAlgorithm::make(py, &f, flow, &failure))
                    .map(|a| Box::new(a) as Box<dyn ExternalAlgorithm>)
                    .map_err(|e| Python::attach(|py| describe(py, &e)))
            }) as Box<ExternalFactory>
        })
        .collect()
}

/// `Type: message` of a Python exception.
fn describe(py: Python<'_>, e: &PyErr) -> String {
    let name = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    format!("{name}: {}", e.value(py))
}
