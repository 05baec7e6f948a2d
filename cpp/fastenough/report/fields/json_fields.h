// The JSON writer and reader of the field declarations (field.h): one
// generic pair instead of a hand-written writer and its mirror-image reader
// per struct. WriteFields writes the declared keys in declared order into an
// open object (the caller may write keys of its own around them);
// WriteObject wraps them in { }. ReadFields reads them back from an
// ObjectReader, which names the first missing or mistyped key by its path.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/analysis/step_breakdown.h"
#include "fastenough/report/fields/field.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/report_json.h"
#include "fastenough/report/row_bound.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::report::fields {

template <class T, class ViewT = void>
void WriteFields(JsonWriter& w, const T& obj, const WriteContext& ctx = {});
template <class T, class ViewT = void>
void WriteObject(JsonWriter& w, const T& obj, const WriteContext& ctx = {}) {
  w.BeginObject();
  WriteFields<T, ViewT>(w, obj, ctx);
  w.EndObject();
}
template <class T, class ViewT = void>
void ReadFields(ObjectReader& o, T& obj);

template <class T>
class FieldWriter {
 public:
  FieldWriter(JsonWriter& w, const T& obj, const WriteContext& ctx) : w_(w), obj_(obj), ctx_(ctx) {}

  template <class A, class ViewT = void>
  void Field(std::string_view key, const A& acc, Unit, std::string_view, Attr attr = {},
             View<ViewT> = {}) {
    if (attr.one_line) {  // the value compact, then placed after the key
      w_.Key(key).Raw(CompactValue(key, acc, attr, View<ViewT>{}));
      return;
    }
    const auto& value = Get(obj_, acc);
    using M = std::remove_cvref_t<decltype(value)>;
    if constexpr (kOptionalObjectList<M>) {  // a list of objects, or null
      using E = typename IsVector<typename IsOptional<M>::Element>::Element;
      w_.Key(key);
      if (!value) {
        w_.Null();
        return;
      }
      w_.BeginArray();
      for (const E& e : *value) WriteObject<E, ViewT>(w_, e, ctx_);
      w_.EndArray();
    } else if constexpr (std::is_same_v<ViewT, AsMap>) {
      static_assert(kNamedPairs<M>, "View<AsMap> takes a list of (name, value) pairs");
      w_.Key(key).BeginObject();
      for (const auto& [name, v] : value) {
        w_.Key(name);
        MapValue(v);
      }
      w_.EndObject();
    } else if constexpr (kObjectList<M>) {
      using E = typename IsVector<M>::Element;
      if (attr.per_step) {
        const std::vector<size_t> kept = KeptStepRows(ctx_.rows, value.size());
        WriteOmitted(w_, kept, value.size());
        w_.Key(key).BeginArray();
        WriteContext row = ctx_;
        for (size_t i : kept) {
          row.step = i;
          WriteObject<E, ViewT>(w_, value[i], row);
        }
        w_.EndArray();
        return;
      }
      w_.Key(key).BeginArray();
      if (attr.compact) {
        for (const E& e : value) {  // one object a line, as the writer writes it compact
          JsonWriter one;
          WriteObject<E, ViewT>(one, e, ctx_);
          w_.Raw(one.str());
        }
      } else {
        for (const E& e : value) WriteObject<E, ViewT>(w_, e, ctx_);
      }
      w_.EndArray();
    } else {
      w_.Key(key);
      if constexpr (std::is_floating_point_v<M>) {
        if (attr.python_float) {
          w_.PythonFloat(value);
          return;
        }
      }
      if constexpr (std::is_same_v<M, std::string>) {
        if (attr.json_array && !value.empty()) {
          if (value.front() == '[' && value.back() == ']') {
            w_.Raw(value);  // the trace's own array text
          } else {
            w_.String(value);
          }
          return;
        }
      }
      Value<ViewT>(value, attr.null);
    }
  }

  // Written only when present(struct) (an optional key); read when there.
  template <class A, class P>
  void FieldIf(std::string_view key, const A& acc, Unit unit, std::string_view meaning,
               const P& present, Attr attr = {}) {
    if (present(obj_)) Field(key, acc, unit, meaning, attr);
  }

  // A key of a record read from a file: written only when the file had it;
  // collected (its value's text, compact) when WriteFields puts the keys back
  // in the file's order.
  template <class A, class ViewT = void>
  void Recorded(std::string_view key, const A& acc, Unit unit, std::string_view meaning,
                Attr attr = {}, View<ViewT> = {}) {
    if (!obj_.recorded.Has(key)) return;
    if (collected_ == nullptr) {
      Field(key, acc, unit, meaning, attr, View<ViewT>{});
      return;
    }
    collected_->emplace_back(key, CompactValue(key, acc, attr, View<ViewT>{}));
  }

  // Recorded() keys are collected into `into` (key, value text) instead of written.
  void CollectRecorded(std::vector<std::pair<std::string_view, std::string>>* into) {
    collected_ = into;
  }

  template <class F>
  void Derived(std::string_view key, const F& fn, Unit, std::string_view, Attr attr = {}) {
    w_.Key(key);
    Value<void>(fn(obj_), attr.null);
  }

  void Rank(std::string_view) { w_.Field("rank", ctx_.rank); }
  void StepNumber(std::string_view) {
    w_.Field("number", ctx_.analysis->steps.steps[ctx_.step].window.number);
  }
  void Constant(std::string_view key, std::string_view text, std::string_view) {
    w_.Field(key, text);
  }
  void Reserved(std::string_view key, std::string_view) { w_.Key(key).Null(); }

  template <class A>
  void Inline(const A& acc) {
    WriteFields(w_, Get(obj_, acc), ctx_);
  }

  template <class D>
  void Group(std::string_view key, std::string_view, const D& declare, Attr = {}) {
    w_.Key(key).BeginObject();
    declare(*this);
    w_.EndObject();
  }
  template <class D>
  void Group(std::string_view key, std::string_view, const D& declare, bool T::*present) {
    w_.Key(key);
    if (!(obj_.*present)) {
      w_.Null();
      return;
    }
    w_.BeginObject();
    declare(*this);
    w_.EndObject();
  }

  template <class A, class P, class ViewT = void>
  void Object(std::string_view key, const A& acc, std::string_view, const P& present,
              View<ViewT> = {}) {
    const auto& value = Get(obj_, acc);
    w_.Key(key);
    if (!present(value)) {
      w_.Null();
      return;
    }
    WriteObject<std::remove_cvref_t<decltype(value)>, ViewT>(w_, value, ctx_);
  }

  template <class A>
  void PerCategory(const A& acc, Unit, std::string_view) {
    const auto& values = Get(obj_, acc);
    for (size_t k = 0; k < analysis::kStepCategoryCount; ++k) {
      w_.Field(std::string(analysis::StepCategoryName(k)) + "_ns", values[k]);
    }
  }

  template <class W, class R>
  void Custom(std::string_view key, std::string_view, Unit, std::string_view, const W& write,
              const R&, Attr = {}) {
    w_.Key(key);
    write(w_, obj_, ctx_);
  }

  // A custom value written only when present(struct, context).
  template <class P, class W, class R>
  void CustomIf(std::string_view key, std::string_view type, Unit unit, std::string_view meaning,
                const P& present, const W& write, const R& read) {
    if (present(obj_, ctx_)) Custom(key, type, unit, meaning, write, read);
  }

  template <class C>
  void AfterRead(const C&) {}
  void Name(std::string_view) {}

 private:
  template <class ViewT, class M>
  void Value(const M& v, Null null) {
    if constexpr (std::is_same_v<M, std::string>) {
      if (null == Null::kEmpty && v.empty()) {
        w_.Null();
      } else {
        w_.String(v);
      }
    } else if constexpr (std::is_same_v<M, bool>) {
      w_.Bool(v);
    } else if constexpr (std::is_floating_point_v<M>) {
      if (null == Null::kNegative && v < 0) {
        w_.Null();
      } else {
        w_.Double(v);
      }
    } else if constexpr (std::is_integral_v<M> && std::is_signed_v<M>) {
      const int64_t i = static_cast<int64_t>(v);
      if ((null == Null::kNegative && i < 0) || (null == Null::kNonPositive && i <= 0) ||
          (null == Null::kZero && i == 0) ||
          (null == Null::kNone && i == trace::kNone)) {
        w_.Null();
      } else {
        w_.Int(i);
      }
    } else if constexpr (std::is_integral_v<M>) {
      w_.Uint(static_cast<uint64_t>(v));
    } else if constexpr (IsOptional<M>::value) {
      if (!v) {
        w_.Null();
      } else {
        Value<ViewT>(*v, null);
      }
    } else if constexpr (IsVector<M>::value) {
      w_.BeginArray();
      for (const auto& e : v) {
        if constexpr (std::is_same_v<typename IsVector<M>::Element, std::string>) {
          w_.String(e);
        } else if constexpr (kIntPair<typename IsVector<M>::Element>) {
          w_.BeginArray()
              .Int(static_cast<int64_t>(e.first))
              .Int(static_cast<int64_t>(e.second))
              .EndArray();
        } else if constexpr (std::is_floating_point_v<typename IsVector<M>::Element>) {
          w_.Double(e);
        } else {
          w_.Int(static_cast<int64_t>(e));
        }
      }
      w_.EndArray();
    } else {
      WriteObject<M, ViewT>(w_, v, ctx_);
    }
  }

  // The member's value as compact JSON text (one_line, and a record's
  // collected keys).
  template <class A, class ViewT>
  std::string CompactValue(std::string_view key, const A& acc, Attr attr, View<ViewT>) {
    attr.one_line = false;
    JsonWriter one;
    FieldWriter<T> inner(one, obj_, ctx_);
    inner.Field(key, acc, Unit::kNone, {}, attr, View<ViewT>{});
    std::string prefix;  // what `one` wrote before the value: "key":
    JsonWriter::AppendEscaped(prefix, key);
    return std::string(one.str()).substr(prefix.size() + 1);
  }

  template <class E>
  void MapValue(const E& v) {
    if constexpr (std::is_same_v<E, std::string>) {
      w_.String(v);
    } else if constexpr (IsOptional<E>::value) {
      if (v) {
        MapValue(*v);
      } else {
        w_.Null();
      }
    } else if constexpr (kDeclaredObject<E>) {
      WriteObject<E>(w_, v, ctx_);
    } else if constexpr (std::is_floating_point_v<E>) {
      w_.Double(v);
    } else if constexpr (std::is_integral_v<E>) {
      w_.Int(static_cast<int64_t>(v));
    } else {  // a variant of the above
      std::visit([this](const auto& x) { MapValue(x); }, v);
    }
  }

  JsonWriter& w_;
  const T& obj_;
  const WriteContext& ctx_;
  std::vector<std::pair<std::string_view, std::string>>* collected_ = nullptr;
};

template <class T>
class FieldReader {
 public:
  FieldReader(ObjectReader& o, T& obj) : o_(o), obj_(obj) {}

  template <class A, class ViewT = void>
  void Field(std::string_view key, const A& acc, Unit, std::string_view, Attr attr = {},
             View<ViewT> = {}) {
    if (attr.since_later && !o_.Has(key)) return;
    auto& dst = Get(obj_, acc);
    using M = std::remove_cvref_t<decltype(dst)>;
    if constexpr (std::is_same_v<ViewT, AsMap>) {
      using E = typename M::value_type::second_type;
      ObjectReader members = o_.Object(key);
      for (auto& [name, value] : members.Members()) {
        int64_t i;
        double d;
        std::string_view text;
        if constexpr (std::is_same_v<E, std::string> ||
                      std::is_same_v<E, std::optional<std::string>>) {
          if (value.get_string().get(text) == simdjson::SUCCESS) {
            dst.emplace_back(name, std::string(text));
          } else if (std::is_same_v<E, std::optional<std::string>> && value.is_null()) {
            dst.emplace_back(name, E{});
          } else {
            members.Fail(name, std::is_same_v<E, std::string> ? "expected a string"
                                                               : "expected a string or null");
            return;
          }
        } else if constexpr (std::is_same_v<E, int64_t>) {
          if (value.get_int64().get(i) != simdjson::SUCCESS) {
            members.Fail(name, "expected an integer");
            return;
          }
          dst.emplace_back(name, i);
        } else if constexpr (kDeclaredObject<E>) {
          std::optional<ObjectReader> sub = members.ObjectOrNull(name);
          if (!sub) {
            members.Fail(name, "expected an object");
            return;
          }
          E e;
          ReadFields<E>(*sub, e);
          dst.emplace_back(name, std::move(e));
        } else {  // an integer, a number (null: one that was not finite), a string
          if (value.get_int64().get(i) == simdjson::SUCCESS) {
            dst.emplace_back(name, i);
          } else if (value.is_null()) {
            dst.emplace_back(name, std::numeric_limits<double>::quiet_NaN());
          } else if (value.get_double().get(d) == simdjson::SUCCESS) {
            dst.emplace_back(name, d);
          } else if (value.get_string().get(text) == simdjson::SUCCESS) {
            dst.emplace_back(name, std::string(text));
          } else {
            members.Fail(name, "expected an integer, a number, null or a string");
          }
        }
      }
    } else if constexpr (std::is_same_v<M, std::string>) {
      dst = attr.null == Null::kEmpty ? o_.StringOrNull(key) : o_.String(key);
    } else if constexpr (std::is_same_v<M, bool>) {
      dst = o_.Bool(key);
    } else if constexpr (std::is_floating_point_v<M>) {
      dst = static_cast<M>(o_.Double(key));
      if (attr.null == Null::kNegative && std::isnan(dst)) dst = -1;
    } else if constexpr (std::is_integral_v<M> && std::is_signed_v<M>) {
      switch (attr.null) {
        case Null::kNegative: dst = static_cast<M>(o_.IntOrNull(key, -1)); break;
        case Null::kNonPositive:
        case Null::kZero: dst = static_cast<M>(o_.IntOrNull(key, 0)); break;
        case Null::kNone: dst = static_cast<M>(o_.IntOrNull(key, trace::kNone)); break;
        default: dst = static_cast<M>(o_.Int(key)); break;
      }
    } else if constexpr (std::is_integral_v<M>) {
      dst = static_cast<M>(o_.Uint(key));
    } else if constexpr (IsOptional<M>::value) {
      using E = typename IsOptional<M>::Element;
      if constexpr (std::is_same_v<E, std::string> || std::is_same_v<E, bool>) {
        if (o_.IsNull(key)) {
          dst.reset();
        } else if constexpr (std::is_same_v<E, std::string>) {
          dst = o_.String(key);
        } else {
          dst = o_.Bool(key);
        }
      } else if constexpr (std::is_integral_v<E>) {
        const int64_t absent = std::numeric_limits<int64_t>::min();
        const int64_t v = o_.IntOrNull(key, absent);
        if (v == absent) dst.reset(); else dst = static_cast<E>(v);
      } else if constexpr (kObjectList<E>) {
        if (o_.IsNull(key)) {
          dst.reset();
        } else {
          E list;
          for (ObjectReader r : o_.Objects(key)) {
            typename IsVector<E>::Element e;
            ReadFields<typename IsVector<E>::Element, ViewT>(r, e);
            list.push_back(std::move(e));
          }
          dst = std::move(list);
        }
      } else {
        static_assert(!kScalar<E>, "an optional number is not read back yet");
        if (std::optional<ObjectReader> sub = o_.ObjectOrNull(key)) {
          E e;
          ReadFields<E, ViewT>(*sub, e);
          dst = std::move(e);
        } else {
          dst.reset();
        }
      }
    } else if constexpr (IsVector<M>::value) {
      using E = typename IsVector<M>::Element;
      if constexpr (std::is_same_v<E, std::string>) {
        for (simdjson::dom::element e : o_.Array(key)) {
          std::string_view text;
          if (e.get_string().get(text) != simdjson::SUCCESS) {
            o_.Fail(key, "expected strings");
            return;
          }
          dst.emplace_back(text);
        }
      } else if constexpr (kIntPair<E>) {
        for (simdjson::dom::element point : o_.Array(key)) {
          simdjson::dom::array two;
          std::optional<int64_t> a, b;
          if (point.get_array().get(two) == simdjson::SUCCESS && two.size() == 2) {
            a = ElementInt(two.at(0).value_unsafe());
            b = ElementInt(two.at(1).value_unsafe());
          }
          if (!a || !b) {
            o_.Fail(key, "expected [a, b] pairs of integers");
            return;
          }
          dst.emplace_back(static_cast<typename E::first_type>(*a),
                           static_cast<typename E::second_type>(*b));
        }
      } else if constexpr (std::is_floating_point_v<E>) {
        for (simdjson::dom::element e : o_.Array(key)) {
          double d;
          if (e.get_double().get(d) != simdjson::SUCCESS) {  // an integer reads as well
            o_.Fail(key, "expected numbers");
            return;
          }
          dst.push_back(static_cast<E>(d));
        }
      } else if constexpr (kScalar<E>) {
        for (simdjson::dom::element e : o_.Array(key)) {
          const std::optional<int64_t> v = ElementInt(e);
          if (!v) {
            o_.Fail(key, "expected integers");
            return;
          }
          dst.push_back(static_cast<E>(*v));
        }
      } else {
        for (ObjectReader r : o_.Objects(key)) {
          E e;
          ReadFields<E, ViewT>(r, e);
          dst.push_back(std::move(e));
        }
      }
    } else {
      ObjectReader sub = o_.Object(key);
      ReadFields<M, ViewT>(sub, dst);
    }
  }

  template <class A, class P>
  void FieldIf(std::string_view key, const A& acc, Unit unit, std::string_view meaning, const P&,
               Attr attr = {}) {
    if (o_.Has(key)) Field(key, acc, unit, meaning, attr);
  }

  // The key read when there, and listed among the keys the file had, in its order.
  template <class A, class ViewT = void>
  void Recorded(std::string_view key, const A& acc, Unit unit, std::string_view meaning,
                Attr attr = {}, View<ViewT> = {}) {
    if (!o_.Has(key)) return;
    obj_.recorded.keys.emplace_back(key);
    Field(key, acc, unit, meaning, attr, View<ViewT>{});
  }

  template <class F>
  void Derived(std::string_view, const F&, Unit, std::string_view, Attr = {}) {}
  void Rank(std::string_view) {}
  void StepNumber(std::string_view) {}
  void Constant(std::string_view, std::string_view, std::string_view) {}
  void Reserved(std::string_view, std::string_view) {}

  template <class A>
  void Inline(const A& acc) {
    ReadFields(o_, Get(obj_, acc));
  }

  template <class D>
  void Group(std::string_view key, std::string_view, const D& declare, Attr attr = {}) {
    if (attr.since_later && !o_.Has(key)) return;
    ObjectReader sub = o_.Object(key);
    FieldReader<T> g(sub, obj_);
    declare(g);
  }
  template <class D>
  void Group(std::string_view key, std::string_view, const D& declare, bool T::*present) {
    std::optional<ObjectReader> sub = o_.ObjectOrNull(key);
    obj_.*present = sub.has_value();
    if (!sub) return;
    FieldReader<T> g(*sub, obj_);
    declare(g);
  }

  template <class A, class P, class ViewT = void>
  void Object(std::string_view key, const A& acc, std::string_view, const P&, View<ViewT> = {}) {
    if (std::optional<ObjectReader> sub = o_.ObjectOrNull(key)) {
      auto& dst = Get(obj_, acc);
      ReadFields<std::remove_cvref_t<decltype(dst)>, ViewT>(*sub, dst);
    }
  }

  template <class A>
  void PerCategory(const A& acc, Unit, std::string_view) {
    auto& values = Get(obj_, acc);
    for (size_t k = 0; k < analysis::kStepCategoryCount; ++k) {
      const std::string key = std::string(analysis::StepCategoryName(k)) + "_ns";
      using E = std::remove_cvref_t<decltype(values[k])>;
      if constexpr (std::is_floating_point_v<E>) {
        values[k] = o_.Double(key);
      } else {
        values[k] = o_.Int(key);
      }
    }
  }

  template <class W, class R>
  void Custom(std::string_view key, std::string_view, Unit, std::string_view, const W&,
              const R& read, Attr attr = {}) {
    if (attr.since_later && !o_.Has(key)) return;
    read(o_, obj_);
  }

  template <class P, class W, class R>
  void CustomIf(std::string_view key, std::string_view, Unit, std::string_view, const P&, const W&,
                const R& read) {
    if (o_.Has(key)) read(o_, obj_);
  }

  void Name(std::string_view) {}
  template <class C>
  void AfterRead(const C& check) {
    check(o_, obj_);
  }

 private:
  ObjectReader& o_;
  T& obj_;
};

template <class T, class ViewT>
void WriteFields(JsonWriter& w, const T& obj, const WriteContext& ctx) {
  FieldWriter<T> v(w, obj, ctx);
  if constexpr (kRecordedKeys<T>) {
    // A record another writer wrote (meta.json, agent/<pid>.json): its keys
    // come back in the file's order (a Python dict's keys come in the order
    // the program set them, which a declaration cannot know), each value
    // compact, as the report always showed these records.
    std::vector<std::pair<std::string_view, std::string>> values;
    v.CollectRecorded(&values);
    Fields(v, Of<T, ViewT>{});
    for (const std::string& key : obj.recorded.keys) {
      for (const auto& [k, text] : values) {
        if (k == key) {
          w.Key(k).Raw(text);
          break;
        }
      }
    }
    return;
  }
  Fields(v, Of<T, ViewT>{});
}

template <class T, class ViewT>
void ReadFields(ObjectReader& o, T& obj) {
  FieldReader<T> v(o, obj);
  Fields(v, Of<T, ViewT>{});
  if constexpr (kRecordedKeys<T>) {
    // The keys read, in the file's order (WriteFields writes them back in it).
    std::vector<std::string> in_file;
    for (const auto& member : o.Members()) {
      if (obj.recorded.Has(member.first) &&
          std::find(in_file.begin(), in_file.end(), member.first) == in_file.end()) {
        in_file.push_back(member.first);  // (a key given twice: once)
      }
    }
    obj.recorded.keys = std::move(in_file);
  }
}

}  // namespace fastenough::report::fields
