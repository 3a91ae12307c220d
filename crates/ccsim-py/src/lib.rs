//! Python bindings of the ccsim simulator: type conversion only.
//!
//! Results cross into Python as columns: a numeric column is `(numpy dtype string, bytes)`,
//! which Python turns into an array with `np.frombuffer` without a Python object per value.

mod heap;
mod python_cc;
mod rate_sample;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use ccsim::results::{Column, Results, Table};
use ccsim::time::SimTime;

#[global_allocator]
static ALLOC: heap::Counting = heap::Counting;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario failed to parse or validate: args are (path, message)."
);

fn scenario_err(e: ccsim::ScenarioError) -> PyErr {
    ScenarioError::new_err((e.path, e.message))
}

/// Bytes the Rust core has allocated now, and at most since the last call with `reset=True`
/// (which then starts a new peak from the current level).
#[pyfunction]
#[pyo3(signature = (reset = false))]
fn heap_bytes(reset: bool) -> (usize, usize) {
    let out = (heap::current(), heap::peak());
    if reset {
        heap::reset_peak();
    }
    out
}

/// The ccsim version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// How the core was compiled: "release" or "debug", with ", PGO" for a profile-guided build.
#[pyfunction]
fn build() -> &'static str {
    ccsim::BUILD
}

/// A fingerprint of the core's source (16 hex digits): sweeps key cached points by it.
#[pyfunction]
fn source() -> &'static str {
    ccsim::SOURCE
}

/// The scenario JSON Schema, as a JSON string.
#[pyfunction]
fn schema() -> String {
    ccsim::scenario::json_schema()
}

/// Parses, validates and builds a scenario without running it.
#[pyfunction]
fn validate(scenario_json: &str) -> PyResult<()> {
    ccsim::scenario::load(scenario_json)
        .map(|_| ())
        .map_err(scenario_err)
}

/// A built simulation, advanced in steps of simulated time.
#[pyclass(module = "ccsim._core")]
struct Simulation {
    sim: ccsim::Simulation,
    /// The first failure of a congestion control written in Python, if any.
    failure: python_cc::FailureSlot,
    /// Whether any flow runs a congestion control written in Python.
    python_cc: bool,
}

#[pymethods]
impl Simulation {
    /// Builds the scenario; `external` lists the factories of the congestion controls written
    /// in Python that its `cc = { kind = "external", slot = k }` name (`factory(flow_name)`
    /// returns a `ccsim.CongestionControl`).
    #[new]
    #[pyo3(signature = (scenario_json, external = None))]
    fn new(scenario_json: &str, external: Option<Bound<'_, PyList>>) -> PyResult<Self> {
        let failure = python_cc::FailureSlot::default();
        let factories = match &external {
            Some(list) => python_cc::factories(list, &failure),
            None => Vec::new(),
        };
        let python_cc = !factories.is_empty();
        let sim = ccsim::scenario::load_with(scenario_json, &factories).map_err(scenario_err)?;
        Ok(Simulation {
            sim,
            failure,
            python_cc,
        })
    }

    /// The first failure of a congestion control written in Python, as `(hook, flow, time_s,
    /// exception)`, or None. The run goes on without calling Python hooks after one.
    fn failure(&self, py: Python<'_>) -> Option<(&'static str, String, f64, Py<PyAny>)> {
        let slot = self.failure.lock().ok()?;
        slot.as_ref().map(|f| {
            (
                f.hook,
                f.flow.clone(),
                f.time_s,
                f.err.clone_ref(py).into_value(py).into_any(),
            )
        })
    }

    /// Simulated seconds the run lasts.
    #[getter]
    fn duration(&self) -> f64 {
        self.sim.end().as_secs_f64()
    }

    /// Simulated seconds reached so far.
    #[getter]
    fn now(&self) -> f64 {
        self.sim.now.as_secs_f64()
    }

    /// Advances to simulated time `t` seconds (capped at the end), without holding the GIL
    /// unless congestion controls written in Python run (their hooks then take it cheaply).
    fn run_until(&mut self, py: Python<'_>, t: f64) {
        let sim = &mut self.sim;
        let mut step = move || sim.run_until(SimTime::from_secs_f64(t));
        if self.python_cc {
            step()
        } else {
            py.detach(step)
        }
    }

    /// Runs to the end if needed and returns the results as a dict of columns.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let sim = &mut self.sim;
        let mut rest = move || {
            sim.run();
            ccsim::results::collect(sim)
        };
        let results = if self.python_cc {
            rest()
        } else {
            py.detach(rest)
        };
        results_to_py(py, &results)
    }
}

fn numeric<'py, T: Copy>(
    py: Python<'py>,
    dtype: &str,
    v: &[T],
    bytes: fn(T) -> [u8; 8],
) -> PyResult<Bound<'py, PyAny>> {
    let raw: Vec<u8> = v.iter().flat_map(|x| bytes(*x)).collect();
    Ok((dtype, PyBytes::new(py, &raw))
        .into_pyobject(py)?
        .into_any())
}

fn column<'py>(py: Python<'py>, c: &Column) -> PyResult<Bound<'py, PyAny>> {
    match c {
        Column::F64(v) => numeric(py, "<f8", v, f64::to_le_bytes),
        Column::U64(v) => numeric(py, "<u8", v, u64::to_le_bytes),
        Column::Str(v) => Ok(PyList::new(py, v)?.into_any()),
    }
}

fn table<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, c) in &t.columns {
        d.set_item(*name, column(py, c)?)?;
    }
    Ok(d)
}

fn results_to_py<'py>(py: Python<'py>, r: &Results) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let m = &r.meta;
    let meta = PyDict::new(py);
    meta.set_item("name", &m.name)?;
    meta.set_item("seed", m.seed)?;
    meta.set_item("duration_s", m.duration_s)?;
    meta.set_item("events", m.events)?;
    meta.set_item("packets_injected", m.packets_injected)?;
    meta.set_item("packets_consumed", m.packets_consumed)?;
    meta.set_item("packets_dropped", m.packets_dropped)?;
    meta.set_item("packets_in_network", m.packets_in_network)?;
    meta.set_item("packets_peak", m.packets_peak)?;
    out.set_item("meta", meta)?;
    out.set_item("flows", table(py, &r.flows)?)?;
    out.set_item("queues", table(py, &r.queues)?)?;
    let series = PyDict::new(py);
    for (name, s) in &r.series {
        let d = PyDict::new(py);
        let t: Vec<f64> = s.time.iter().map(|ns| *ns as f64 / 1e9).collect();
        d.set_item("time_s", numeric(py, "<f8", &t, f64::to_le_bytes)?)?;
        let ids: Vec<u64> = s.id.iter().map(|i| *i as u64).collect();
        d.set_item("id", numeric(py, "<u8", &ids, u64::to_le_bytes)?)?;
        d.set_item("value", numeric(py, "<f8", &s.value, f64::to_le_bytes)?)?;
        series.set_item(name.as_str(), d)?;
    }
    out.set_item("series", series)?;
    out.set_item("packets", table(py, &r.packets)?)?;
    Ok(out)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(source, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(heap_bytes, m)?)?;
    m.add_class::<Simulation>()?;
    m.add_class::<python_cc::Connection>()?;
    m.add_class::<python_cc::Ack>()?;
    m.add_class::<rate_sample::RateSample>()?;
    Ok(())
}
