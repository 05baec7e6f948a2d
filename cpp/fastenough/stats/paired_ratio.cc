#include "fastenough/stats/paired_ratio.h"

#include <cmath>

namespace fastenough::stats {

namespace {
constexpr double kPairedNaN = std::numeric_limits<double>::quiet_NaN();

// Continued fraction of the incomplete beta function, evaluated by the
// modified Lentz method (Numerical Recipes, `betacf`). It converges fast for
// x < (a + 1) / (a + b + 2), in O(sqrt(max(a, b))) terms; the cap only stops a
// runaway, it is far above what a t quantile for any real run needs.
double BetaContinuedFraction(double a, double b, double x) {
  constexpr int kMaxTerms = 100000;
  constexpr double kEps = std::numeric_limits<double>::epsilon();
  // Stands in for a zero denominator, which would stop Lentz's recurrence.
  constexpr double kTiny = 1e-300;
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= kMaxTerms; ++m) {
    const double m2 = 2.0 * m;
    // Even step.
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    // Odd step.
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) <= kEps) break;
  }
  return h;
}

// Regularized incomplete beta I_x(a, b), given y = 1 - x and the log of its
// prefactor x^a y^b / B(a, b) from the caller, who can compute both without
// the cancellation a generic 1 - x and lgamma difference would suffer.
double IncompleteBeta(double a, double b, double x, double y, double log_front) {
  if (x <= 0.0) return 0.0;
  if (y <= 0.0) return 1.0;
  const double front = std::exp(log_front);
  // Use the fraction on whichever side of the mean it converges quickly,
  // with the symmetry I_x(a, b) = 1 - I_{1-x}(b, a).
  if (x < (a + 1.0) / (a + b + 2.0)) {
    return front * BetaContinuedFraction(a, b, x) / a;
  }
  return 1.0 - front * BetaContinuedFraction(b, a, y) / b;
}

// log(Gamma(a + 1/2) / Gamma(a)). std::lgamma differences lose digits as a
// grows (lgamma(5e5) ~ 6e6, whose ulp is ~1e-9, which would cap the quantile
// at ~1e-9 relative for dof = 1e6), so large a uses the asymptotic series
// (1/2) log a + sum_k (-1)^k (B_k(1/2) - B_k(0)) / (k (k - 1) a^(k - 1)),
// whose first omitted term is below 3e-15 for a >= 20.
double LogGammaRatioHalf(double a) {
  if (a < 20.0) return std::lgamma(a + 0.5) - std::lgamma(a);
  const double r = 1.0 / a, r2 = r * r;
  return 0.5 * std::log(a) +
         r * (-1.0 / 8.0 +
              r2 * (1.0 / 192.0 + r2 * (-1.0 / 640.0 + r2 * (17.0 / 14336.0))));
}

// P(|T_dof| > t) = I_{dof / (dof + t^2)}(dof / 2, 1 / 2); decreasing in t.
// Working with the tail (not 1 - tail) keeps its precision for confidence
// near 1, where the tail is the small number that matters.
double TwoSidedTail(double dof, double t) {
  const double t2 = t * t;
  const double denom = dof + t2;
  const double a = dof / 2.0;
  const double x = dof / denom, y = t2 / denom;
  if (x <= 0.0 || y <= 0.0) return IncompleteBeta(a, 0.5, x, y, 0.0);
  // log x as -log1p(t^2 / dof): for large dof, x is within t^2 / dof of 1 and
  // log(x) would keep only the few digits of x that differ from 1.
  const double log_sqrt_pi = 0.5 * std::log(std::acos(-1.0));  // lgamma(1/2)
  const double log_front = LogGammaRatioHalf(a) - log_sqrt_pi -
                           a * std::log1p(t2 / dof) + 0.5 * std::log(y);
  return IncompleteBeta(a, 0.5, x, y, log_front);
}

struct LogRatios {
  std::vector<double> d;     // log(b_i / a_i) of the pairs that counted
  double first_ratio = kPairedNaN;  // b_0 / a_0 of the first pair that counted
};

// A log ratio needs two positive, finite times; anything else (a failed
// round recorded as NaN, a clock that read 0) is not a measurement.
bool UsableTime(double v) { return std::isfinite(v) && v > 0.0; }

LogRatios CollectLogRatios(const std::vector<double>& a,
                           const std::vector<double>& b) {
  LogRatios out;
  out.d.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (!UsableTime(a[i]) || !UsableTime(b[i])) continue;
    const double r = b[i] / a[i];
    if (out.d.empty()) out.first_ratio = r;
    out.d.push_back(std::log(r));
  }
  return out;
}

bool AllEqual(const std::vector<double>& d) {
  for (double v : d) {
    if (v != d.front()) return false;
  }
  return true;
}
}  // namespace

double StudentTCritical(double dof, double confidence) {
  if (!(std::isfinite(dof) && dof >= 1.0)) return kPairedNaN;
  if (!(confidence > 0.0 && confidence < 1.0)) return kPairedNaN;
  const double alpha = 1.0 - confidence;
  // Bracket: double hi until its tail is at most alpha. confidence < 1 means
  // alpha >= 2^-53, so even dof = 1 (tail ~ 2 / (pi t)) stops near t = 6e15.
  double lo = 0.0, hi = 1.0;
  while (TwoSidedTail(dof, hi) > alpha) {
    lo = hi;
    hi *= 2.0;
    if (!std::isfinite(hi)) return kPairedNaN;
  }
  // Bisection: the tail is monotone, so this cannot fail to converge; ~45
  // halvings past the bracket reach 1e-13 relative, below the rounding of the
  // tail itself (see the header), so stopping later would buy nothing.
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (TwoSidedTail(dof, mid) > alpha) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

PairedRatio PairedLogRatio(const std::vector<double>& a,
                           const std::vector<double>& b, double confidence) {
  PairedRatio out;
  out.confidence = confidence;
  if (a.size() != b.size()) return out;
  const LogRatios lr = CollectLogRatios(a, b);
  const size_t n = lr.d.size();
  out.pairs = static_cast<int64_t>(n);
  if (n == 0) return out;
  if (n == 1) {
    // b / a itself, not exp(log(b / a)), so one pair reports its exact ratio.
    out.ratio = lr.first_ratio;
    return out;
  }
  const bool valid_confidence = confidence > 0.0 && confidence < 1.0;
  if (AllEqual(lr.d)) {
    // No spread: the interval is the point. Taken from d_0 directly, since a
    // summed mean of equal values can drift by an ulp and open a spurious gap.
    out.ratio = std::exp(lr.d.front());
    if (valid_confidence) out.low = out.high = out.ratio;
    return out;
  }
  double sum = 0.0;
  for (double v : lr.d) sum += v;
  const double nd = static_cast<double>(n);
  const double mean = sum / nd;
  double ss = 0.0;  // two-pass: no cancellation between sum of squares and mean^2
  for (double v : lr.d) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / (nd - 1.0));
  out.ratio = std::exp(mean);
  if (!valid_confidence) return out;
  const double half = StudentTCritical(nd - 1.0, confidence) * sd / std::sqrt(nd);
  out.low = std::exp(mean - half);
  out.high = std::exp(mean + half);
  return out;
}

}  // namespace fastenough::stats
