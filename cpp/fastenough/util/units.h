// The one human formatting of durations, bytes and shares. Finding texts the
// core writes and every renderer (python/fastenough/render/units.py calls
// these through the binding) print the same value the same way.
//
// The rule:
//   Durations (nanoseconds in): the largest unit the value reaches, with a
//     fixed number of decimals per unit:
//       < 1 µs: "512 ns"      (0 decimals)
//       < 1 ms: "500.0 µs"    (1 decimal; "µs", U+00B5: every output is UTF-8)
//       < 1 s:  "1.23 ms"     (2 decimals)
//       < 60 s: "12.35 s"     (2 decimals)
//       else:   "2.5 min"     (1 decimal)
//     The unit is chosen on the value as printed: 999.95 µs rounds to
//     1000.0 µs, so it is "1.00 ms" (likewise 999.5 ns -> "1.0 µs",
//     999.995 ms -> "1.00 s", 59.995 s -> "1.0 min"). A negative value keeps
//     its sign ("-1.50 ms"); one that prints as zero has none ("0 ns").
//   Bytes: binary units as the report's *_bytes fields are counted (1 KiB =
//     1024 B): whole bytes below 1 KiB ("1023 B"), then 1 decimal ("1.0 KiB",
//     "1.5 MiB", "80.0 GiB", up to TiB), the unit chosen on the printed value
//     (1048575 B is "1.0 MiB", not "1024.0 KiB"). Negative: "-".
//   Shares (a fraction of a whole, 0.312): a percentage with 1 decimal,
//     "31.2%"; above 1 as it is ("150.0%"). Negative: "-".
//   NaN or an infinity, in any of the three: "-" (absent).
#pragma once

#include <string>

namespace fastenough::util {

std::string FormatDuration(double ns);
std::string FormatBytes(double bytes);
std::string FormatShare(double share);

}  // namespace fastenough::util
