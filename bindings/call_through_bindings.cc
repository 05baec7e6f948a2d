// CallThrough and TorchFunctionObserver: the agent's wrappers of the program's
// callables, in native code so that they leave no Python frame of their own.
//
// A wrapper written in Python sits between the program and what it calls:
// every traceback raised through it shows a fastenough frame, and
// warnings.warn(..., stacklevel=N) inside the wrapped function counts that
// frame, so torch's own warnings were attributed to fastenough's lines instead
// of the user's. A native callable is no frame: the traceback through it shows
// the caller and the target only, and stacklevel counts what it counts
// without the agent.
//
// CallThrough(target, before=None, after=None, on_error=None, transform=None,
//             reentry=None) calls target(*args, **kwargs) and around it:
//   token = before(args, kwargs)          (its frame exists only while it runs;
//                                          without before, token is args)
//   result = target(*args, **kwargs)      (time in it summed into ns)
//   result = transform(token, result)     (replaces the result: __getstate__)
//   after(token, result, ns)
//   on_error(token, exception)            (target raised; the exception goes on)
// A callback that raises is counted in `errors` (last message in `last_error`)
// and never reaches the program: its exception is dropped, the program's call
// goes on as if the callback were absent. As a class attribute it binds like a
// function (it is a descriptor), so it can replace a method.
//
// TorchFunctionObserver(observe): bound to a TorchDispatchMode (or
// TorchFunctionMode) instance as its handler (types.MethodType(observer, mode):
// torch requires the handler's __self__ to be the mode), it runs
// func(*args, **kwargs) and then observe(func, args, kwargs, out, ns); torch
// takes the mode off while its handler runs, so func does not come back here.
// A dispatch mode is the one that changes nothing the program sees: a
// TorchFunctionMode sends torch's Python functions through
// torch.overrides.handle_torch_function, whose frames then show in
// tracebacks and shift the frames that warnings.warn(stacklevel=N) counts.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <time.h>

#include <cstdint>
#include <string>
#include <utility>

#include "register.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {

int64_t MonoNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Shared by the wrappers of one watch (the sync watch's methods): a call made
// while another of them runs on the same thread goes straight to its target
// (print(tensor) calls .item() inside: one host sync, counted once).
class Reentry {
 public:
  bool busy() const { return depth_ > 0 && thread_ == PyThread_get_thread_ident(); }
  void enter() {
    if (depth_++ == 0) thread_ = PyThread_get_thread_ident();
  }
  void leave() { --depth_; }
  int64_t depth() const { return depth_; }

 private:
  int64_t depth_ = 0;
  unsigned long thread_ = 0;
};

// The current exception, taken out of the interpreter and put back when this
// goes out of scope, so that callbacks can run while an exception propagates.
class SavedError {
 public:
  SavedError() { PyErr_Fetch(&type_, &value_, &tb_); }
  ~SavedError() { PyErr_Restore(type_, value_, tb_); }
  PyObject* value() {
    PyErr_NormalizeException(&type_, &value_, &tb_);
    return value_ != nullptr ? value_ : Py_None;
  }

 private:
  PyObject* type_ = nullptr;
  PyObject* value_ = nullptr;
  PyObject* tb_ = nullptr;
};

class CallThrough {
 public:
  CallThrough(nb::object target, nb::object before, nb::object after, nb::object on_error,
              nb::object transform, nb::object reentry)
      : target_(std::move(target)),
        before_(std::move(before)),
        after_(std::move(after)),
        on_error_(std::move(on_error)),
        transform_(std::move(transform)) {
    if (!reentry.is_none()) {
      reentry_obj_ = std::move(reentry);
      reentry_ = nb::cast<Reentry*>(reentry_obj_);
    }
  }

  nb::object Call(nb::args args, nb::kwargs kwargs) {
    PyObject* kw = PyDict_GET_SIZE(kwargs.ptr()) > 0 ? kwargs.ptr() : nullptr;
    if (!enabled_ || (reentry_ != nullptr && reentry_->busy())) {
      return Invoke(args, kw);
    }
    ++calls_;
    if (reentry_ != nullptr) reentry_->enter();
    // Without a before callback the token is the call's positional arguments.
    nb::object token = args;
    if (!before_.is_none()) {
      token = Callback(before_, {args.ptr(), kwargs.ptr()});
      if (!token.is_valid()) token = nb::none();
    }
    const int64_t t0 = MonoNs();
    PyObject* result = PyObject_Call(target_.ptr(), args.ptr(), kw);
    const int64_t elapsed = MonoNs() - t0;
    ns_ += elapsed;
    if (reentry_ != nullptr) reentry_->leave();
    if (result == nullptr) {
      if (!on_error_.is_none()) {
        SavedError saved;
        Callback(on_error_, {token.ptr(), saved.value()});
      }
      throw nb::python_error();
    }
    nb::object out = nb::steal(result);
    if (!transform_.is_none()) {
      nb::object changed = Callback(transform_, {token.ptr(), out.ptr()});
      if (changed.is_valid()) out = changed;
    }
    if (!after_.is_none()) {
      nb::object ns = nb::int_(elapsed);
      Callback(after_, {token.ptr(), out.ptr(), ns.ptr()});
    }
    return out;
  }

  // Bound to an instance when looked up on a class, as a function would be.
  static nb::object Get(nb::handle self, nb::handle instance, nb::handle /*owner*/) {
    if (instance.is_none()) return nb::borrow(self);
    PyObject* m = PyMethod_New(self.ptr(), instance.ptr());
    if (m == nullptr) throw nb::python_error();
    return nb::steal(m);
  }

  nb::object target() const { return target_; }
  bool enabled_ = true;
  int64_t calls_ = 0;
  int64_t ns_ = 0;
  int64_t errors_ = 0;
  std::string last_error_;

 private:
  nb::object Invoke(nb::args args, PyObject* kw) {
    PyObject* result = PyObject_Call(target_.ptr(), args.ptr(), kw);
    if (result == nullptr) throw nb::python_error();
    return nb::steal(result);
  }

  // Calls fn; its result, or an invalid object when it raised (the error is
  // counted and cleared: the program never sees it).
  nb::object Callback(const nb::object& fn, std::initializer_list<PyObject*> args) {
    PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(args.size()));
    if (tuple == nullptr) {
      NoteError();
      return nb::object();
    }
    Py_ssize_t i = 0;
    for (PyObject* a : args) {
      Py_INCREF(a);
      PyTuple_SET_ITEM(tuple, i++, a);
    }
    PyObject* r = PyObject_Call(fn.ptr(), tuple, nullptr);
    Py_DECREF(tuple);
    if (r == nullptr) {
      NoteError();
      return nb::object();
    }
    return nb::steal(r);
  }

  void NoteError() {
    ++errors_;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value != nullptr) {
      PyObject* s = PyObject_Str(value);
      const char* text = s != nullptr ? PyUnicode_AsUTF8(s) : nullptr;
      const char* name = type != nullptr ? reinterpret_cast<PyTypeObject*>(type)->tp_name : "?";
      last_error_ = std::string(name) + ": " + (text != nullptr ? text : "?");
      Py_XDECREF(s);
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyErr_Clear();
  }

  nb::object target_, before_, after_, on_error_, transform_;
  nb::object reentry_obj_;
  Reentry* reentry_ = nullptr;
};

class TorchFunctionObserver {
 public:
  explicit TorchFunctionObserver(nb::object observe) : observe_(std::move(observe)) {}

  nb::object Call(nb::handle /*mode*/, nb::handle func, nb::handle /*types*/, nb::handle args,
                  nb::handle kwargs) {
    nb::object a = args.is_none() ? nb::steal(PyTuple_New(0)) : nb::borrow(args);
    nb::object kw = kwargs.is_none() ? nb::dict() : nb::borrow(kwargs);
    if (!PyTuple_Check(a.ptr())) a = nb::steal(PySequence_Tuple(a.ptr()));
    if (!a.is_valid()) throw nb::python_error();
    // An OpOverload (TorchDispatchMode) is called through its C++ op: its own
    // __call__ is a Python frame that the program's tracebacks would show.
    nb::handle target = func;
    nb::object op;
    if (PyObject_HasAttr(func.ptr(), op_name_.ptr())) {
      op = nb::steal(PyObject_GetAttr(func.ptr(), op_name_.ptr()));
      if (op.is_valid() && PyCallable_Check(op.ptr())) target = op;
      PyErr_Clear();
    }
    const int64_t t0 = MonoNs();
    PyObject* out = PyObject_Call(target.ptr(), a.ptr(),
                                  PyDict_GET_SIZE(kw.ptr()) > 0 ? kw.ptr() : nullptr);
    const int64_t ns = MonoNs() - t0;
    if (out == nullptr) throw nb::python_error();
    nb::object result = nb::steal(out);
    if (enabled_) {
      nb::object n = nb::int_(ns);
      PyObject* r = PyObject_CallFunctionObjArgs(observe_.ptr(), func.ptr(), a.ptr(), kw.ptr(),
                                                 result.ptr(), n.ptr(), nullptr);
      if (r == nullptr) {
        ++errors_;
        enabled_ = false;  // the observer failed once: the program's calls go on unobserved
        PyErr_Clear();
      } else {
        Py_DECREF(r);
      }
    }
    return result;
  }

  bool enabled_ = true;
  int64_t errors_ = 0;

 private:
  nb::object observe_;
  nb::object op_name_ = nb::steal(PyUnicode_InternFromString("_op"));
};

}  // namespace

void RegisterCallThrough(nb::module_& m) {
  // Whether this thread is inside a trace or profile function (sys.settrace,
  // sys.setprofile, torch's Python tracer): CPython counts it in the thread
  // state. A signal handler that runs there (a __repr__ the tracer called)
  // must not stop that tracer: the stop waits for the tracer itself.
  m.def("in_trace_callback", [] { return PyThreadState_Get()->tracing > 0; },
        "True while this thread runs inside a trace or profile function.");
  nb::class_<Reentry>(m, "CallReentry",
                      "Shared by CallThrough wrappers whose calls must not count nested calls")
      .def(nb::init<>())
      .def_prop_ro("depth", &Reentry::depth);
  nb::class_<CallThrough>(m, "CallThrough", nb::dynamic_attr(),
                          "A native wrapper that leaves no Python frame (agent/passthrough.py)")
      .def(nb::init<nb::object, nb::object, nb::object, nb::object, nb::object, nb::object>(),
           nb::arg("target"), nb::arg("before").none() = nb::none(),
           nb::arg("after").none() = nb::none(), nb::arg("on_error").none() = nb::none(),
           nb::arg("transform").none() = nb::none(), nb::arg("reentry").none() = nb::none())
      .def("__call__", &CallThrough::Call)
      .def("__get__", &CallThrough::Get, nb::arg("instance").none(),
           nb::arg("owner").none() = nb::none())
      .def_prop_ro("target", &CallThrough::target)
      .def_rw("enabled", &CallThrough::enabled_)
      .def_ro("calls", &CallThrough::calls_)
      .def_ro("ns", &CallThrough::ns_)
      .def_ro("errors", &CallThrough::errors_)
      .def_ro("last_error", &CallThrough::last_error_);
  nb::class_<TorchFunctionObserver>(m, "TorchFunctionObserver",
                                    "A native __torch_function__ for a TorchFunctionMode")
      .def(nb::init<nb::object>(), nb::arg("observe"))
      .def("__call__", &TorchFunctionObserver::Call, nb::arg("mode"), nb::arg("func"),
           nb::arg("types"),
           nb::arg("args").none() = nb::none(), nb::arg("kwargs").none() = nb::none())
      .def_rw("enabled", &TorchFunctionObserver::enabled_)
      .def_ro("errors", &TorchFunctionObserver::errors_);
}

}  // namespace fastenough::bindings
