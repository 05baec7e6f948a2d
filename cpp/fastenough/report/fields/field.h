// One declaration of each serialised struct's fields (issue 35, item 1;
// docs/architecture.md, "One declaration of the report").
//
// A struct's JSON object is declared once, as a function template that names
// each key, the member it holds, its unit and what it means:
//
//   template <class V>
//   void Fields(V& v, Of<analysis::OpRow>) {
//     using R = analysis::OpRow;
//     v.Field("name", &R::name, Unit::kNone, "the op's name as the trace wrote it");
//     v.Field("total_ns", &R::total_ns, Unit::kNs, "inclusive host time, summed");
//   }
//
// and visitors walk that declaration: json_fields.h writes it (declared order
// is the JSON key order) and reads it back (ObjectReader, messages naming the
// path), describe.h lists it as data (key path, JSON type, unit, nullable,
// meaning) for the JSON Schema, the docs' tables and a typed model. Member
// pointers let one declaration serve the const writer and the mutable reader.
//
// What a declaration can say (every visitor implements each):
//   Field(key, member, unit, meaning[, attr][, View<X>{}])
//       a value: string, bool, double (NaN: null), integer, a list of
//       integers, doubles or strings, a list of integer pairs ([a, b] each), a
//       declared struct (an object) or a list of them (objects), a list of
//       (name, value) pairs as one object (View<AsMap>; a value: a string, a
//       string or null, an integer, a declared struct, or a variant of
//       int64_t, double and string);
//       View<X> picks another declaration of the element struct.
//       A std::optional member is its value, or null when empty.
//   FieldIf(key, member, unit, meaning, present[, attr])  an optional key:
//       written when present(struct), read when there (a std::optional
//       member with present = has_value: never null).
//   Recorded(key, member, unit, meaning[, attr][, View<X>{}])  a key of a
//       record read from a file of another writer (meta.json, an agent's
//       record): written back only when the file had it (the struct's
//       `recorded` member, report/meta_record.h, lists the keys read, in the
//       file's order, which is the order they are written back in, each value
//       compact), its value as Field's.
//   Derived(key, fn, unit, meaning[, attr])  written from fn(struct), not read
//       back (it follows from other fields: dur_ns = end_ns - start_ns).
//   Rank(meaning) / StepNumber(meaning)  written from where the object is
//       (the rank it belongs to; the number of the step a per-step row is
//       of), not read back.
//   Constant(key, text, meaning)  written as given, not read back.
//   Reserved(key, meaning)  a key every document has, kept for a later use:
//       always null (its JSON Schema type is null), not read back.
//   Inline(member)  the member struct's own fields, in this object.
//   Group(key, meaning, declare[, present | attr])  a JSON object of this
//       struct's own members (present: a bool member, false written as null;
//       attr: since_later only).
//   Object(key, member, meaning, present, View<X>{})  a declared struct
//       (or a view of it) as an object, null when present(value) is false.
//   PerCategory(member, unit, meaning)  "<category>_ns" for each step
//       category (analysis::StepCategoryName).
//   Custom(key, type, unit, meaning, write, read[, attr])  a value the
//       declaration cannot say (pairs, maps, free-form evidence): its own
//       code, named here (attr: since_later only).
//   CustomIf(key, type, unit, meaning, present, write, read)  the same, the
//       key written only when present(struct, context), read when there.
//   AfterRead(check)  a check of the whole object once read (reader only).
//   Name(name)  the object's name in the JSON Schema ($defs/<name>) and the
//       typed Python model's class (describer only).
// Attributes (Attr): how an absent value is written (null) and read back;
// values: the strings a key may take (the JSON Schema's enum); least, most,
// pattern, non_empty: bounds the JSON Schema states (Attr{.least = "1"});
// per_step: a per-step list the report bounds (row_bound.h), with `omitted`
// before it when rows are left out; since_later: may be missing from older
// documents (read as the member's default); compact: a list of objects
// written one object a line; json_array: a string member holding a JSON
// array's text, written as the array; least_items: the fewest items a list
// has (a Custom list of integers then needs no hand-written schema: its
// items take least as their minimum); python_float: a double written as
// Python's json spells a float ("2.0", "1e-05"), for a record Python wrote;
// one_line: the value written compact on one line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace fastenough::analysis {
struct RankAnalysis;
}  // namespace fastenough::analysis

namespace fastenough::report {
struct RankRows;
}  // namespace fastenough::report

namespace fastenough::report::fields {

enum class Unit {
  kNone,       // a name, a flag, a kind
  kNs,         // nanoseconds (integer, or a double for medians and means)
  kBytes,
  kCount,
  kShare,      // a fraction, 0..1
  kPercent,    // 0..100
  kId,         // a rank, device, stream number as the trace numbered it
  kStep,       // N of ProfilerStep#N
  kIndex,      // a 0-based position
  kPerSecond,
  kWatts,
};

constexpr std::string_view UnitName(Unit u) {
  switch (u) {
    case Unit::kNone: return "";
    case Unit::kNs: return "ns";
    case Unit::kBytes: return "bytes";
    case Unit::kCount: return "count";
    case Unit::kShare: return "share";
    case Unit::kPercent: return "percent";
    case Unit::kId: return "id";
    case Unit::kStep: return "step";
    case Unit::kIndex: return "index";
    case Unit::kPerSecond: return "per_s";
    case Unit::kWatts: return "W";
  }
  return "";
}

// How an absent value is written (JSON null) and read back. A double that is
// NaN is always null, and null reads back as NaN.
enum class Null {
  kNever,
  kNegative,     // a number below 0 is null; null reads as -1
  kNonPositive,  // an integer of 0 or below is null; null reads as 0
  kZero,         // an integer 0 is null; null reads as 0
  kNone,         // trace::kNone (INT64_MIN) is null, and null reads as it
  kEmpty,        // an empty string is null; null reads as ""
};

struct Attr {
  Null null = Null::kNever;
  bool per_step = false;     // a per-step list the report bounds (row_bound.h)
  bool since_later = false;  // may be missing from older documents
  // The values a string may take, '|'-separated ("train|eval"); null: any.
  // The JSON Schema's enum (describe.h); the writer and reader ignore it.
  const char* values = nullptr;
  // Bounds the JSON Schema states (describe.h); the writer and reader ignore
  // them. least overrides the unit's least value (MinimumOf: 0 for counts,
  // bytes, shares); most: the greatest; pattern: a string's regular
  // expression; non_empty: a string of one character or more.
  const char* least = nullptr;
  const char* most = nullptr;
  const char* pattern = nullptr;
  bool non_empty = false;
  // A list of objects written one object a line (the report's shapes rows).
  bool compact = false;
  // A string that holds a JSON array as the trace wrote it ("[[8, 512]]"):
  // written as that array (other text as a string); the JSON Schema's type is
  // "array". Not read back.
  bool json_array = false;
  // The fewest items a list has (the JSON Schema's minItems); "" none.
  const char* least_items = nullptr;
  // A double written as Python's json writes a float (JsonWriter::PythonFloat):
  // a record Python wrote (meta.json) comes back byte for byte.
  bool python_float = false;
  // The value written compact on one line inside an indented document (a
  // record another writer wrote, kept as the report always showed it).
  bool one_line = false;
};

// A string that takes one of `values` ("ok|no-events|cycle").
constexpr Attr OneOf(const char* values, Null null = Null::kNever) {
  Attr a;
  a.null = null;
  a.values = values;
  return a;
}

inline constexpr Attr kNullIfNegative{Null::kNegative};
inline constexpr Attr kNullIfNotPositive{Null::kNonPositive};
inline constexpr Attr kNullIfZero{Null::kZero};
inline constexpr Attr kNullIfNone{Null::kNone};
inline constexpr Attr kNullIfEmpty{Null::kEmpty};
inline constexpr Attr kPerStep{Null::kNever, true};

// The declaration of T's object; View names a second declaration of the same
// struct (another object the report writes of it).
template <class T, class View = void>
struct Of {};
template <class X = void>
struct View {};

// View<AsMap>: a list of (name, value) pairs written as one JSON object, the
// names its keys (a value: a string, std::optional<std::string>, an integer, a
// declared struct, or a variant of int64_t, double and string, as a finding's
// evidence).
struct AsMap;
template <class T>
constexpr bool kNamedPairs = false;
template <class V, class A>
constexpr bool kNamedPairs<std::vector<std::pair<std::string, V>, A>> = true;

// A member of a member: Path(&StepStats::duration, &Distribution::median).
template <class M1, class M2>
struct PathOf {
  M1 outer;
  M2 inner;
  template <class O>
  decltype(auto) operator()(O& o) const {
    return ((o.*outer).*inner);
  }
};
template <class M1, class M2>
constexpr PathOf<M1, M2> Path(M1 outer, M2 inner) {
  return {outer, inner};
}

// The value an accessor (a member pointer or a callable) names in o.
template <class O, class A>
decltype(auto) Get(O& o, const A& acc) {
  if constexpr (std::is_member_object_pointer_v<A>) {
    return (o.*acc);
  } else {
    return acc(o);
  }
}
template <class T, class A>
using MemberType = std::remove_cvref_t<decltype(Get(std::declval<T&>(), std::declval<const A&>()))>;

template <class T>
struct IsVector : std::false_type {};
template <class E, class A>
struct IsVector<std::vector<E, A>> : std::true_type {
  using Element = E;
};

// std::optional<X>: X, or null when empty (a FieldIf of it, written only when
// set, is never null).
template <class T>
struct IsOptional : std::false_type {};
template <class E>
struct IsOptional<std::optional<E>> : std::true_type {
  using Element = E;
};

// A value with a JSON type of its own (not a declared struct).
template <class T>
constexpr bool kScalar = std::is_arithmetic_v<T> || std::is_same_v<T, std::string>;

// A pair of integers, written as a JSON array of two ([time_ns, bytes]).
template <class T>
constexpr bool kIntPair = false;
template <class A, class B>
constexpr bool kIntPair<std::pair<A, B>> = std::is_integral_v<A> && std::is_integral_v<B>;

template <class T>
constexpr bool kVariant = false;
template <class... A>
constexpr bool kVariant<std::variant<A...>> = true;

// A struct with a declaration of its own (a JSON object), as a map's value.
template <class T>
constexpr bool kDeclaredObject = std::is_class_v<T> && !kScalar<T> && !IsOptional<T>::value &&
                                 !IsVector<T>::value && !kVariant<T>;

// A record read from another writer's file (report/meta_record.h): its
// `recorded` keys say which keys it had, in the file's order.
template <class T>
constexpr bool kRecordedKeys = requires(const T& t) { t.recorded.keys; };

// A list of declared structs (a JSON array of objects).
template <class T>
constexpr bool kObjectList = false;
template <class E, class A>
constexpr bool kObjectList<std::vector<E, A>> = !kScalar<E> && !kIntPair<E>;

// std::optional of a list of declared structs: the list, or null.
template <class T>
constexpr bool kOptionalObjectList = false;
template <class E>
constexpr bool kOptionalObjectList<std::optional<E>> = kObjectList<E>;

// Where an object is written: what Rank(), StepNumber() and per-step lists read.
struct WriteContext {
  int rank = 0;
  const RankRows* rows = nullptr;  // the rows the report lists; null: every row
  const analysis::RankAnalysis* analysis = nullptr;  // the rank's (StepNumber)
  size_t step = 0;                                   // the per-step row being written
  // The report's own object (report_object_fields.h): each rank's listed rows.
  const std::vector<RankRows>* report_rows = nullptr;
};

}  // namespace fastenough::report::fields
