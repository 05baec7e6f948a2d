// The field declarations (field.h) as data: one row per key, with its path
// from the document's root ("$.devices[].streams[].busy_ns"), JSON type,
// unit, whether it can be null, how it is written and what it means. The
// JSON Schema, the schema doc's tables and a typed model are generated from
// these rows (cpp/tools/describe_fields_main.cc prints them as JSON).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fastenough/analysis/step_breakdown.h"
#include "fastenough/report/fields/field.h"

namespace fastenough::report::fields {

struct FieldInfo {
  std::string path;     // "$.steps.windows[].start_ns"
  std::string type;     // string | integer | number | boolean | object | array of ...
  std::string unit;     // UnitName(); "" for none
  bool nullable = false;
  // "field" (a member, read back), "optional" (a member, the key only
  // when it is set), "recorded" (a member of a record read from a file,
  // the key only when the file had it), "derived" (computed from other fields),
  // "context" (where the object is: its rank, its step), "constant",
  // "custom" (the declaration's own code; keys below it are not declared),
  // "reserved" (a key kept for later, always null),
  // "omitted" (a bounded list's left-out rows),
  // "map" (an object whose keys are names: View<AsMap>).
  std::string kind;
  std::string meaning;
  // Whether every document has the key: false for "optional", "omitted",
  // a custom key written only sometimes, and keys older documents lack
  // (since_later). A nullable key is still required: it is written as null.
  bool required = true;
  std::string values;   // the strings it may take, '|'-separated; "" any
  std::string minimum;  // its least value ("0" for counts, bytes, shares); "" none
  std::string name;     // the object's (or the listed objects') name in the JSON Schema
  std::string maximum;  // its greatest value; "" none
  std::string pattern;  // a string's regular expression; "" any
  bool non_empty = false;  // a string of one character or more
  std::string min_items;   // the fewest items of a list; "" none
};

// The least value of a number in `unit`: what cannot be negative.
constexpr std::string_view MinimumOf(Unit unit) {
  switch (unit) {
    case Unit::kCount:
    case Unit::kBytes:
    case Unit::kShare:
    case Unit::kPercent:
    case Unit::kIndex:
    case Unit::kPerSecond:
    case Unit::kWatts:
      return "0";
    default:
      return "";
  }
}

template <class T, class ViewT = void>
void DescribeFields(const std::string& prefix, std::vector<FieldInfo>& out);

// An optional member's value type (its key is that, or null).
template <class M>
struct UnwrapOptional {
  using type = M;
};
template <class E>
struct UnwrapOptional<std::optional<E>> {
  using type = E;
};
template <class M>
using Unwrapped = typename UnwrapOptional<M>::type;

template <class M>
constexpr const char* JsonTypeOf() {
  if constexpr (std::is_same_v<M, std::string>) {
    return "string";
  } else if constexpr (std::is_same_v<M, bool>) {
    return "boolean";
  } else if constexpr (std::is_floating_point_v<M>) {
    return "number";
  } else if constexpr (std::is_integral_v<M>) {
    return "integer";
  } else if constexpr (IsVector<M>::value) {
    using E = typename IsVector<M>::Element;
    if constexpr (std::is_same_v<E, std::string>) return "array of strings";
    if constexpr (kIntPair<E>) return "array of integer pairs";
    if constexpr (std::is_floating_point_v<E>) return "array of numbers";
    return kScalar<E> ? "array of integers" : "array of objects";
  } else {
    return "object";
  }
}

// The JSON type of a View<AsMap> map whose values are E ("object of <what>").
template <class E>
constexpr const char* MapTypeOf() {
  if constexpr (std::is_same_v<E, std::string>) {
    return "object of strings";
  } else if constexpr (std::is_same_v<E, std::optional<std::string>>) {
    return "object of strings or null";
  } else if constexpr (std::is_same_v<E, int64_t>) {
    return "object of integers";
  } else if constexpr (kDeclaredObject<E>) {
    return "object of objects";
  } else {
    return "object of integers, numbers (null: not finite) and strings";
  }
}

template <class T>
class FieldDescriber {
 public:
  FieldDescriber(std::string prefix, std::vector<FieldInfo>& out)
      : prefix_(std::move(prefix)), out_(out) {}

  template <class A, class ViewT = void>
  void Field(std::string_view key, const A&, Unit unit, std::string_view meaning, Attr attr = {},
             View<ViewT> = {}) {
    using M = Unwrapped<MemberType<T, A>>;
    if constexpr (std::is_same_v<ViewT, AsMap>) {
      using E = typename M::value_type::second_type;
      Add(key, MapTypeOf<E>(), unit, false, "map", meaning);
      out_.back().required = !attr.since_later;
      if constexpr (kDeclaredObject<E>) {  // each value: a row that takes its object's name
        out_.push_back({Path(key) + ".*", "object", "", false, "name",
                        "a value of " + Path(key) + ", by its name", true, "", "", "", "", "",
                        false, ""});
        DescribeFields<E>(Path(key) + ".*", out_);
      }
      return;
    }
    if (attr.per_step) Add("omitted", "object", Unit::kNone, false, "omitted",
                           "only when the report leaves out rows of `" + std::string(key) +
                               "` (row_bound.h): {count, kept: [[begin, end], ...]}");
    if (attr.per_step) out_.back().required = false;
    Add(key, attr.json_array ? "array" : JsonTypeOf<M>(), unit,
        Nullable<M>(attr.null) || IsOptional<MemberType<T, A>>::value, "field", meaning);
    out_.back().required = !attr.since_later;
    if (attr.values != nullptr) out_.back().values = attr.values;
    if (attr.least != nullptr) out_.back().minimum = attr.least;
    if (attr.most != nullptr) out_.back().maximum = attr.most;
    if (attr.pattern != nullptr) out_.back().pattern = attr.pattern;
    out_.back().non_empty = attr.non_empty;
    if constexpr (std::is_same_v<ViewT, AsMap>) {
      // described above
    } else if constexpr (IsVector<M>::value) {
      using E = typename IsVector<M>::Element;
      if constexpr (!kScalar<E> && !kIntPair<E>) DescribeFields<E, ViewT>(Path(key) + "[]", out_);
    } else if constexpr (!kScalar<M>) {
      DescribeFields<M, ViewT>(Path(key), out_);
    }
  }

  template <class A, class P>
  void FieldIf(std::string_view key, const A& acc, Unit unit, std::string_view meaning, const P&,
               Attr attr = {}) {
    const size_t at = out_.size();
    Field(key, acc, unit, meaning, attr);
    out_[at].kind = "optional";
    out_[at].required = false;
    // An optional member written only when set (present = has_value).
    if constexpr (IsOptional<MemberType<T, A>>::value) out_[at].nullable = false;
  }

  // Written only when the file read had the key; null when Field's would be.
  // (A map keeps its kind: its type says what its values are.)
  template <class A, class ViewT = void>
  void Recorded(std::string_view key, const A& acc, Unit unit, std::string_view meaning,
                Attr attr = {}, View<ViewT> = {}) {
    const size_t at = out_.size();
    Field(key, acc, unit, meaning, attr, View<ViewT>{});
    out_[at].kind = "recorded";
    out_[at].required = false;
  }

  template <class F>
  void Derived(std::string_view key, const F&, Unit unit, std::string_view meaning,
               Attr attr = {}) {
    using M = std::remove_cvref_t<decltype(std::declval<F>()(std::declval<const T&>()))>;
    Add(key, JsonTypeOf<M>(), unit, Nullable<M>(attr.null), "derived", meaning);
    if (attr.values != nullptr) out_.back().values = attr.values;
  }
  void Rank(std::string_view meaning) {
    Add("rank", "integer", Unit::kId, false, "context", meaning);
  }
  void StepNumber(std::string_view meaning) {
    Add("number", "integer", Unit::kStep, false, "context", meaning);
  }
  void Constant(std::string_view key, std::string_view, std::string_view meaning) {
    Add(key, "string", Unit::kNone, false, "constant", meaning);
  }
  void Reserved(std::string_view key, std::string_view meaning) {
    Add(key, "null", Unit::kNone, true, "reserved", meaning);
  }

  // The member's keys in this object (its name, if any, is not this object's).
  template <class A>
  void Inline(const A&) {
    FieldDescriber<MemberType<T, A>> v(prefix_, out_);
    v.inlined_ = true;
    Fields(v, Of<MemberType<T, A>>{});
  }

  template <class D>
  void Group(std::string_view key, std::string_view meaning, const D& declare,
             bool T::*present = nullptr) {
    Add(key, "object", Unit::kNone, present != nullptr, "field", meaning);
    FieldDescriber<T> g(Path(key), out_);
    declare(g);
  }
  template <class D>
  void Group(std::string_view key, std::string_view meaning, const D& declare, Attr attr) {
    Add(key, "object", Unit::kNone, false, "field", meaning);
    out_.back().required = !attr.since_later;
    FieldDescriber<T> g(Path(key), out_);
    declare(g);
  }

  template <class A, class P, class ViewT = void>
  void Object(std::string_view key, const A&, std::string_view meaning, const P&,
              View<ViewT> = {}) {
    Add(key, "object", Unit::kNone, true, "field", meaning);
    DescribeFields<MemberType<T, A>, ViewT>(Path(key), out_);
  }

  template <class A>
  void PerCategory(const A&, Unit unit, std::string_view meaning) {
    using E = std::remove_cvref_t<decltype(std::declval<MemberType<T, A>&>()[0])>;
    for (size_t k = 0; k < analysis::kStepCategoryCount; ++k) {
      Add(std::string(analysis::StepCategoryName(k)) + "_ns", JsonTypeOf<E>(), unit,
          std::is_floating_point_v<E>, "field",
          std::string(meaning) + " (" + analysis::StepCategoryName(k) + ")");
    }
  }

  template <class W, class R>
  void Custom(std::string_view key, std::string_view type, Unit unit, std::string_view meaning,
              const W&, const R&, Attr attr = {}) {
    Add(key, type, unit, type.find("null") != std::string_view::npos, "custom", meaning);
    out_.back().required = !attr.since_later;
    if (attr.values != nullptr) out_.back().values = attr.values;
    if (attr.least != nullptr) out_.back().minimum = attr.least;
    if (attr.least_items != nullptr) out_.back().min_items = attr.least_items;
  }

  template <class P, class W, class R>
  void CustomIf(std::string_view key, std::string_view type, Unit unit, std::string_view meaning,
                const P&, const W&, const R&) {
    Add(key, type, unit, false, "custom", meaning);
    out_.back().required = false;
  }

  template <class C>
  void AfterRead(const C&) {}

  // The object's name in the JSON Schema: on the row of the key that holds
  // it (an object, or a list of them), else a row of kind "name" at its path
  // (an object the caller describes without a row of its own).
  void Name(std::string_view name) {
    if (inlined_) return;
    for (auto it = out_.rbegin(); it != out_.rend(); ++it) {
      if (it->path == prefix_ || it->path + "[]" == prefix_) {
        it->name = name;
        return;
      }
    }
    out_.push_back({prefix_, "object", "", false, "name", "", true, "", "", std::string(name), "",
                    "", false, ""});
  }

 private:
  template <class M>
  static bool Nullable(Null null) {
    return null != Null::kNever || std::is_floating_point_v<M>;
  }
  std::string Path(std::string_view key) const { return prefix_ + "." + std::string(key); }
  void Add(std::string_view key, std::string_view type, Unit unit, bool nullable,
           std::string_view kind, std::string_view meaning) {
    out_.push_back({Path(key), std::string(type), std::string(UnitName(unit)), nullable,
                    std::string(kind), std::string(meaning), true, "",
                    std::string(MinimumOf(unit)), "", "", "", false, ""});
  }

  std::string prefix_;
  std::vector<FieldInfo>& out_;
  bool inlined_ = false;

  template <class>
  friend class FieldDescriber;
};

template <class T, class ViewT>
void DescribeFields(const std::string& prefix, std::vector<FieldInfo>& out) {
  FieldDescriber<T> v(prefix, out);
  Fields(v, Of<T, ViewT>{});
}

}  // namespace fastenough::report::fields
