// StepHook: the agent's per-step hot path in native code.
//
// In a long steady loop the agent needs nothing from a model call but the
// time it began (a step boundary) and the batch size. Python code run right
// after a model call is slow (the model has just evicted the interpreter from
// the caches: on a 3.5 ms CPU step the agent's Python hooks cost ~60 us, the
// same code warm ~10 us), so once the Python side turns `deferring` on, this
// hook records boundaries and batch sizes in a buffer and calls the Python
// hook ("live") only now and then: every `live_every`-th call (0: never for
// that reason), when the buffer holds `capacity` records, or when `max_age_ns`
// have passed since the last live call. The Python side drains the buffer and
// replays it through its ordinary step logic before it does anything else, so
// what is recorded is the same as with the Python hooks alone.
//
// It is a forward pre-hook only (with kwargs): torch's module call costs
// ~10-15 us per hook on such a step whatever the hook does, so while
// deferring the Python side keeps no forward (post) hook on the model and
// registers a one-shot one from a live call when it needs the output. Calls
// from threads other than the program's main thread, and every call while
// deferring is off, go to Python unchanged. A deferred call inside a deferred
// call (the model calling itself) would count as a step: not seen in practice.
#include <nanobind/nanobind.h>
#include <time.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "register.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {

int64_t ClockNs(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

constexpr int64_t kNone = -1;

class StepHook {
 public:
  StepHook(nb::object tensor_type, nb::object int_dtypes, nb::object live_pre,
           nb::object batch_size, bool record, uint64_t main_thread)
      : tensor_type_(std::move(tensor_type)),
        live_pre_(std::move(live_pre)),
        batch_size_(std::move(batch_size)),
        record_(record),
        main_thread_(main_thread) {
    for (nb::handle d : int_dtypes) int_dtypes_.push_back(nb::borrow(d));
  }

  nb::object Pre(nb::handle module, nb::handle args, nb::handle kwargs) {
    if (!deferring_ || PyThread_get_thread_ident() != main_thread_) {
      return live_pre_(module, args, kwargs);
    }
    if (only_id_ != 0 && static_cast<int64_t>(reinterpret_cast<intptr_t>(module.ptr())) != only_id_) {
      // Optimizer use: another optimizer of the same iteration (a GAN's
      // generator after its discriminator) ends no step. Two of its steps in
      // a row without the pacing one go live: the Python side chooses anew.
      if (++others_in_a_row_ >= 2) {
        others_in_a_row_ = 0;
        last_live_ns_ = ClockNs(CLOCK_MONOTONIC);
        return live_pre_(module, args, kwargs);
      }
      return nb::none();
    }
    others_in_a_row_ = 0;
    const int64_t mono = ClockNs(CLOCK_MONOTONIC);
    ++calls_;
    if (records_.size() >= capacity_ || mono - last_live_ns_ >= max_age_ns_ ||
        (live_every_ > 0 && calls_ % live_every_ == 0) || ModeChanged(module)) {
      last_live_ns_ = mono;
      return live_pre_(module, args, kwargs);
    }
    ++deferred_calls_;
    if (record_) {
      Record r{mono, ClockNs(CLOCK_REALTIME), kNone, kNone};
      BatchSize(args, kwargs, &r.items, &r.tokens);
      records_.push_back(r);
    }
    return nb::none();
  }

  // DataLoader use, around the iterator's __next__: Begin() before the fetch
  // (true: deferred, the boundary is recorded; false: let Python handle this
  // one), Finish(batch) after it with the batch, or None when none came.
  bool Begin() {
    if (!deferring_ || PyThread_get_thread_ident() != main_thread_) return false;
    const int64_t mono = ClockNs(CLOCK_MONOTONIC);
    ++calls_;
    if (records_.size() >= capacity_ || mono - last_live_ns_ >= max_age_ns_ ||
        (live_every_ > 0 && calls_ % live_every_ == 0) || MainModelModeChanged()) {
      last_live_ns_ = mono;
      return false;
    }
    ++deferred_calls_;
    pending_ = Record{mono, ClockNs(CLOCK_REALTIME), kNone, kNone};
    has_pending_ = true;
    return true;
  }

  void Finish(nb::handle batch) {
    if (!has_pending_) return;
    has_pending_ = false;
    if (!batch.is_none()) CountsOf(batch, &pending_.items, &pending_.tokens);
    records_.push_back(pending_);
  }

  // The deferred records, oldest first, as (mono_ns, wall_ns, items, tokens)
  // with None for an unknown count; the buffer is emptied.
  nb::list Drain() {
    nb::list out;
    for (const Record& r : records_) {
      out.append(nb::make_tuple(r.mono, r.wall, Optional(r.items), Optional(r.tokens)));
    }
    records_.clear();
    return out;
  }

  bool deferring() const { return deferring_; }
  void set_deferring(bool on) {
    deferring_ = on;
    last_live_ns_ = ClockNs(CLOCK_MONOTONIC);
  }
  int64_t live_every_ = 0;
  // Items are read from this dimension (1 for sequence-first models).
  int64_t batch_dim_ = 0;
  // The mode the deferred calls are in: 1 train (module.training and grad
  // enabled), 0 eval, -1 not checked. A call in the other mode goes live, so
  // the agent switches phases at the right step. grad_enabled_ is
  // torch.is_grad_enabled (a C function: one call costs ~30 ns).
  int64_t expect_train_ = -1;
  nb::object grad_enabled_;
  // DataLoader use: a weak reference to the main model, whose mode a batch
  // fetched in the other mode (an evaluation loop begins) sends live.
  nb::object mode_module_;
  // Model use: false while model calls are no step source (an optimizer or
  // DataLoader loop): the hook then only watches the mode, records nothing.
  bool record_;
  // Optimizer use: id() of the optimizer whose steps end the steps (0: any).
  int64_t only_id_ = 0;
  int64_t others_in_a_row_ = 0;
  int64_t max_age_ns_ = 1000000000;
  size_t capacity_ = 256;
  int64_t deferred_calls_ = 0;  // outermost calls handled here without Python

  size_t pending() const { return records_.size(); }

 private:
  struct Record {
    int64_t mono, wall, items, tokens;
  };

  bool ModeChanged(nb::handle module) {
    if (expect_train_ < 0 || !grad_enabled_.is_valid() || grad_enabled_.is_none()) return false;
    PyObject* training = PyObject_GetAttr(module.ptr(), training_name_.ptr());
    if (training == nullptr) {
      PyErr_Clear();
      return false;
    }
    bool train = training == Py_True;
    Py_DECREF(training);
    if (train) {
      PyObject* grad = PyObject_CallNoArgs(grad_enabled_.ptr());
      if (grad == nullptr) {
        PyErr_Clear();
        return false;
      }
      train = grad == Py_True;
      Py_DECREF(grad);
    }
    return static_cast<int64_t>(train) != expect_train_;
  }

  bool MainModelModeChanged() {
    if (expect_train_ < 0 || !mode_module_.is_valid() || mode_module_.is_none()) return false;
    PyObject* module = PyWeakref_GetObject(mode_module_.ptr());  // borrowed
    if (module == nullptr) {
      PyErr_Clear();
      return false;
    }
    if (module == Py_None) return false;
    return ModeChanged(module);
  }

  static nb::object Optional(int64_t v) {
    if (v == kNone) return nb::none();
    return nb::int_(v);
  }

  // The agent's _batch_size for the usual calls (model(x) with x a tensor,
  // model(input_ids=..., ...)); anything else asks the Python function.
  void BatchSize(nb::handle args, nb::handle kwargs, int64_t* items, int64_t* tokens) {
    PyObject* a = args.ptr();
    PyObject* kw = kwargs.ptr();
    if (PyTuple_Check(a) && PyTuple_GET_SIZE(a) > 0) {
      CountsOf(args, items, tokens);
    } else if (kw != nullptr && PyDict_Check(kw) && PyDict_GET_SIZE(kw) > 0) {
      CountsOf(kwargs, items, tokens);
    }
  }

  // _batch_size(batch) for a tensor, a tuple led by one, or a dict with
  // input_ids; the Python function for anything else.
  void CountsOf(nb::handle batch, int64_t* items, int64_t* tokens) {
    PyObject* b = batch.ptr();
    PyTypeObject* tensor = reinterpret_cast<PyTypeObject*>(tensor_type_.ptr());
    if (Py_TYPE(b) == tensor) {
      if (TensorCounts(b, false, items, tokens)) return;
    } else if (PyTuple_Check(b) && PyTuple_GET_SIZE(b) > 0) {
      PyObject* first = PyTuple_GET_ITEM(b, 0);
      if (Py_TYPE(first) == tensor && TensorCounts(first, false, items, tokens)) return;
    } else if (PyDict_Check(b)) {
      PyObject* ids = PyDict_GetItemWithError(b, input_ids_name_.ptr());  // borrowed
      if (ids == nullptr) PyErr_Clear();
      if (ids != nullptr && Py_TYPE(ids) == tensor && TensorCounts(ids, true, items, tokens)) {
        return;
      }
    }
    nb::object got = batch_size_(batch);
    if (nb::isinstance<nb::tuple>(got) && nb::len(got) == 2) {
      nb::handle i = got[0], t = got[1];
      *items = i.is_none() ? kNone : nb::cast<int64_t>(i);
      *tokens = t.is_none() ? kNone : nb::cast<int64_t>(t);
    }
  }

  // items: dim batch_dim_ (else 0); tokens: numel when 2-D and input ids
  // (known, or an integer dtype). False when the shape cannot be read (then Python decides).
  bool TensorCounts(PyObject* t, bool is_ids, int64_t* items, int64_t* tokens) {
    PyObject* shape = PyObject_GetAttr(t, shape_name_.ptr());
    if (shape == nullptr || !PyTuple_Check(shape)) {
      Py_XDECREF(shape);
      PyErr_Clear();
      return false;
    }
    const Py_ssize_t dims = PyTuple_GET_SIZE(shape);
    bool ok = true;
    if (dims > 0) {
      const int64_t s0 = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, 0));
      int64_t s1 = dims == 2 ? PyLong_AsLongLong(PyTuple_GET_ITEM(shape, 1)) : 0;
      const Py_ssize_t batch = batch_dim_ < dims ? static_cast<Py_ssize_t>(batch_dim_) : 0;
      const int64_t sb = batch == 0 ? s0 : PyLong_AsLongLong(PyTuple_GET_ITEM(shape, batch));
      if (PyErr_Occurred()) {
        PyErr_Clear();
        ok = false;
      } else {
        *items = sb;
        if (dims == 2 && (is_ids || IsIntegerDtype(t))) *tokens = s0 * s1;
      }
    }
    Py_DECREF(shape);
    return ok;
  }

  bool IsIntegerDtype(PyObject* t) {
    PyObject* dtype = PyObject_GetAttr(t, dtype_name_.ptr());
    if (dtype == nullptr) {
      PyErr_Clear();
      return false;
    }
    bool found = false;
    for (const nb::object& d : int_dtypes_) found = found || d.ptr() == dtype;
    Py_DECREF(dtype);
    return found;
  }

  nb::object tensor_type_;
  std::vector<nb::object> int_dtypes_;
  // Attribute and key names made once: building them per call costs as much as
  // the lookups themselves.
  nb::object shape_name_ = nb::steal(PyUnicode_InternFromString("shape"));
  nb::object dtype_name_ = nb::steal(PyUnicode_InternFromString("dtype"));
  nb::object input_ids_name_ = nb::steal(PyUnicode_InternFromString("input_ids"));
  nb::object training_name_ = nb::steal(PyUnicode_InternFromString("training"));
  nb::object live_pre_, batch_size_;
  uint64_t main_thread_;
  bool deferring_ = false;
  int64_t calls_ = 0;
  int64_t last_live_ns_ = 0;
  bool has_pending_ = false;
  Record pending_{0, 0, kNone, kNone};
  std::vector<Record> records_;
};

}  // namespace

void RegisterStepHook(nb::module_& m) {
  // The hooks live in the model's hook dictionaries until the interpreter
  // ends; nanobind would report them as leaked at exit, on the user's stderr.
  nb::set_leak_warnings(false);
  nb::class_<StepHook>(m, "StepHook",
                       "Forward pre-hook that defers per-step Python work (agent/step_hook.py)")
      .def(nb::init<nb::object, nb::object, nb::object, nb::object, bool, uint64_t>(),
           nb::arg("tensor_type"), nb::arg("int_dtypes"), nb::arg("live_pre"),
           nb::arg("batch_size"), nb::arg("record"), nb::arg("main_thread"))
      // kwargs defaults to None: torch calls a hook taken off while it was already
      // looping over a copy of the hooks without it (its with_kwargs entry is gone).
      .def("pre", &StepHook::Pre, nb::arg("module"), nb::arg("args"),
           nb::arg("kwargs").none() = nb::none(),
           "forward pre-hook: register_forward_pre_hook(hook.pre, with_kwargs=True)")
      .def("begin", &StepHook::Begin, "before a DataLoader fetch: true if deferred")
      .def("finish", &StepHook::Finish, nb::arg("batch").none(),
           "after the fetch begun by begin(): its batch, or None")
      .def("drain", &StepHook::Drain)
      .def_prop_rw("deferring", &StepHook::deferring, &StepHook::set_deferring)
      .def_rw("live_every", &StepHook::live_every_)
      .def_rw("max_age_ns", &StepHook::max_age_ns_)
      .def_rw("capacity", &StepHook::capacity_)
      .def_rw("batch_dim", &StepHook::batch_dim_)
      .def_rw("expect_train", &StepHook::expect_train_)
      .def_rw("grad_enabled", &StepHook::grad_enabled_)
      .def_rw("mode_module", &StepHook::mode_module_)
      .def_rw("record", &StepHook::record_)
      .def_rw("only_id", &StepHook::only_id_)
      .def_ro("deferred_calls", &StepHook::deferred_calls_)
      .def_prop_ro("pending", &StepHook::pending);
}

}  // namespace fastenough::bindings
