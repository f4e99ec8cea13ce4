// Differential test against NumPy: random shapes (broadcasting included) and
// edge values (empty tensors, +-inf, NaN, large logits) go through eagervm;
// the inputs and eagervm's outputs are written to a file that
// tests/numpy_ref.py recomputes with NumPy in float64 and compares. Skipped,
// with a message, where python3 or its numpy module is missing (Debian:
// python3-numpy, installed by scripts/install_deps.sh).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::RandomData;
using testing::Rng;

const std::filesystem::path kScript =
    std::filesystem::path(__FILE__).parent_path() / "numpy_ref.py";

// The first Python that imports numpy: $EAGERVM_PYTHON, python3 on PATH, then
// the system one (a PATH python3 from pyenv or a venv may lack the Debian
// package); empty if none does.
std::string FindPython() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("EAGERVM_PYTHON")) candidates.push_back(env);
  candidates.push_back("python3");
  candidates.push_back("/usr/bin/python3");
  for (const std::string& py : candidates) {
    if (std::system(("'" + py + "' -c 'import numpy' >/dev/null 2>&1").c_str()) == 0) return py;
  }
  return "";
}
const std::string& Python() {
  static const std::string py = FindPython();
  return py;
}

// Runs `cmd`, returns its exit status and output.
std::pair<int, std::string> Run(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

template <typename T>
void WriteValues(std::ostream& os, const std::vector<T>& v) {
  os << v.size();
  for (const T& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      char buf[40];
      std::snprintf(buf, sizeof buf, " %.17g", static_cast<double>(x));
      os << buf;
    } else {
      os << ' ' << static_cast<int64_t>(x);
    }
  }
}

// "<dtype> s<dims> <n> <values>"; false if the tensor holds an error.
bool WriteTensor(std::ostream& os, const char* tag, const Tensor& t) {
  std::ostringstream line;
  line << tag << ' ' << ToString(t.dtype()) << " s";
  for (int d = 0; d < t.dim(); ++d) line << (d ? "," : "") << t.size(d);
  line << ' ';
  absl::Status s;
  auto put = [&](auto tag_value) {
    using T = decltype(tag_value);
    absl::StatusOr<std::vector<T>> v = t.ToVector<T>();
    if (!v.ok()) {
      s = v.status();
      return;
    }
    WriteValues(line, *v);
  };
  switch (t.dtype()) {
    case DType::kBool:
      put(bool{});
      break;
    case DType::kInt32:
      put(int32_t{});
      break;
    case DType::kInt64:
      put(int64_t{});
      break;
    case DType::kFloat32:
      put(float{});
      break;
    case DType::kFloat64:
      put(double{});
      break;
    case DType::kUInt8:
      put(uint8_t{});
      break;
    case DType::kFloat16:
    case DType::kBFloat16: {  // exactly, as float32 (a Cast widens without rounding)
      absl::StatusOr<std::vector<float>> v = ops::Cast(t, DType::kFloat32).ToVector<float>();
      if (v.ok())
        WriteValues(line, *v);
      else
        s = v.status();
      break;
    }
  }
  if (!s.ok()) {
    os << "err " << s.code() << ": " << std::string(s.message()) << '\n';
    return false;
  }
  os << line.str() << '\n';
  return true;
}

class Cases {
 public:
  // An op call: its inputs, the attributes numpy_ref.py needs, its output.
  void Add(const std::string& op, const std::string& attrs, std::vector<Tensor> ins,
           const Tensor& out) {
    ASSERT_TRUE(out.ok()) << op << " " << attrs << ": " << out.status();
    os_ << "case " << n_++ << ' ' << op << ' ' << attrs << '\n';
    for (const Tensor& t : ins) ASSERT_TRUE(WriteTensor(os_, "in", t));
    WriteTensor(os_, "out", out);
    os_ << "end\n";
  }
  int count() const { return n_; }
  std::string text() const { return os_.str(); }

 private:
  std::ostringstream os_;
  int n_ = 0;
};

// Random data with edge values mixed in for floats: +-inf, NaN, +-0, large.
template <typename T>
std::vector<T> EdgeData(Rng& rng, int64_t n, bool specials) {
  std::vector<T> v = RandomData<T>(rng, n);
  if constexpr (std::is_floating_point_v<T>) {
    const T edge[] = {std::numeric_limits<T>::infinity(),
                      -std::numeric_limits<T>::infinity(),
                      std::numeric_limits<T>::quiet_NaN(),
                      T(0),
                      T(-0.0),
                      T(1000),
                      T(-1000)};
    for (auto& x : v) {
      if (specials && rng() % 8 == 0) x = edge[rng() % 7];
    }
  } else {
    for (auto& x : v) x = static_cast<T>(static_cast<int64_t>(x) % 4);  // equal pairs occur
  }
  return v;
}

// Shapes that broadcast, empty ones included.
std::pair<Shape, Shape> RandomPair(Rng& rng) {
  Shape out = testing::RandomShape(rng);
  if (out.rank() > 0 && rng() % 6 == 0) out[static_cast<int>(rng() % out.rank())] = 0;
  auto p = testing::BroadcastPair(rng, out);
  if (rng() & 1) std::swap(p.first, p.second);
  return p;
}

template <typename T>
void AddElementwise(Cases& c, Rng& rng) {
  for (int iter = 0; iter < 25; ++iter) {
    auto [sa, sb] = RandomPair(rng);
    Tensor a = Make(EdgeData<T>(rng, sa.numel(), true), sa);
    Tensor b = Make(EdgeData<T>(rng, sb.numel(), true), sb);
    c.Add("Eq", "", {a, b}, ops::Eq(a, b));
    c.Add("Ne", "", {a, b}, ops::Ne(a, b));
    c.Add("Lt", "", {a, b}, ops::Lt(a, b));
    c.Add("Le", "", {a, b}, ops::Le(a, b));
    c.Add("Gt", "", {a, b}, ops::Gt(a, b));
    c.Add("Ge", "", {a, b}, ops::Ge(a, b));
    c.Add("Minimum", "", {a, b}, ops::Minimum(a, b));
    c.Add("Abs", "", {a}, ops::Abs(a));
    const Shape sc = testing::BroadcastPair(rng, sa).first;
    std::vector<bool> dc(static_cast<size_t>(sc.numel()));
    for (size_t i = 0; i < dc.size(); ++i) dc[i] = (rng() & 1) != 0;
    Tensor cond = Make<bool>(dc, sc);
    c.Add("Where", "", {cond, a, b}, ops::Where(cond, a, b));
    if constexpr (std::is_floating_point_v<T>) {
      for (double p : {2.0, 3.0, 0.5, -1.5}) {
        std::ostringstream at;
        at << "p=" << p << (std::is_same_v<T, float> ? " rtol=1e-6" : " rtol=1e-14");
        c.Add("Pow", at.str(), {a}, ops::Pow(a, p));
      }
    }
  }
}

// Softmax family: random shapes and axes, large offsets, +-inf and NaN.
template <typename T>
void AddSoftmax(Cases& c, Rng& rng) {
  for (int iter = 0; iter < 30; ++iter) {
    Shape shape = testing::RandomShape(rng, 3, 6);
    if (shape.rank() == 0) shape = {4};
    if (iter % 7 == 0) shape[0] = 0;
    const int axis = static_cast<int>(rng() % shape.rank());
    std::vector<T> x = EdgeData<T>(rng, shape.numel(), iter % 3 == 0);
    for (auto& v : x) v = static_cast<T>(v * (1 + iter % 5) + (iter % 4) * 1000);  // logits >= 1000
    Tensor t = Make(x, shape);
    const std::string at = "axis=" + std::to_string(axis);
    c.Add("Softmax", at, {t}, ops::Softmax(t, axis));
    c.Add("LogSoftmax", at, {t}, ops::LogSoftmax(t, axis - shape.rank()));
    const int64_t n = rng() % 6, k = 1 + rng() % 5;
    std::vector<T> logits = EdgeData<T>(rng, n * k, iter % 5 == 0);
    for (auto& v : logits) v = static_cast<T>(v * 10 + (iter % 3) * 1500);
    std::vector<int64_t> labels(static_cast<size_t>(n));
    for (auto& l : labels) l = static_cast<int64_t>(rng() % k);
    if (iter % 6 == 5 && n > 0) labels[rng() % n] = (iter % 12 == 5) ? k : -1;  // out of range
    Tensor lt = Make(logits, {n, k}), lb = Make(labels, {n});
    c.Add("CrossEntropy", "", {lt, lb}, ops::CrossEntropy(lt, lb));
  }
}

// Gelu, LayerNorm, Argmax/Argmin, OneHot, IndexSelect, IndexAdd.
template <typename T>
void AddNnIndex(Cases& c, Rng& rng) {
  const std::string tol = std::is_same_v<T, float> ? " rtol=2e-6" : "";
  for (int iter = 0; iter < 25; ++iter) {
    Shape shape = testing::RandomShape(rng, 3, 6);
    if (shape.rank() == 0) shape = {3};
    if (iter % 8 == 0) shape[0] = 0;
    Tensor x = Make(EdgeData<T>(rng, shape.numel(), iter % 3 == 0), shape);
    c.Add("Gelu", tol.empty() ? "" : tol.substr(1), {x}, ops::Gelu(x));
    c.Add("Gelu", "tanh=1" + tol, {x}, ops::Gelu(x, true));
    const int64_t d = shape[shape.rank() - 1];
    Tensor w = Make(RandomData<T>(rng, d), {d}), b = Make(RandomData<T>(rng, d), {d});
    Tensor xn = Make(EdgeData<T>(rng, shape.numel(), iter % 4 == 0), shape);
    c.Add("LayerNorm", "eps=1e-05", {xn, w, b}, ops::LayerNorm(xn, w, b, 1e-5));
    const int axis = static_cast<int>(rng() % shape.rank());
    if (shape[axis] > 0) {
      const std::string at =
          "axis=" + std::to_string(axis) + " keepdim=" + std::to_string(iter % 2);
      c.Add("Argmax", at, {x}, ops::Argmax(x, axis, iter % 2));
      c.Add("Argmin", at, {x}, ops::Argmin(x, axis - shape.rank(), iter % 2));
      c.Add("Min", at, {x}, ops::Min(x, axis, iter % 2));
    }
    if (shape.numel() > 0) {
      c.Add("Min", "all=1", {x}, ops::Min(x));
    }
    Shape is = testing::RandomShape(rng, 2, 4);
    std::vector<int64_t> idx(static_cast<size_t>(is.numel()));
    const int64_t n = shape[axis];
    for (auto& v : idx) v = n > 0 ? static_cast<int64_t>(rng() % n) : 0;
    if (iter % 5 == 4 && !idx.empty()) idx[rng() % idx.size()] = (iter % 10 == 4) ? n : -1;
    if (n > 0 || idx.empty()) {
      Tensor it = Make(idx, is);
      c.Add("IndexSelect", "axis=" + std::to_string(axis), {x, it}, ops::IndexSelect(x, axis, it));
      Shape picked;
      for (int k = 0; k < axis; ++k) picked.push_back(shape[k]);
      for (int k = 0; k < is.rank(); ++k) picked.push_back(is[k]);
      for (int k = axis + 1; k < shape.rank(); ++k) picked.push_back(shape[k]);
      Tensor src = Make(RandomData<T>(rng, picked.numel()), picked);
      c.Add("IndexAdd", "axis=" + std::to_string(axis) + tol, {x, it, src},
            ops::IndexAdd(x, axis, it, src));
      const int64_t classes = n;
      c.Add("OneHot",
            "classes=" + std::to_string(classes) + " dtype=" + std::string(ToString(DTypeOf<T>())),
            {it}, ops::OneHot(it, classes, DTypeOf<T>()));
    }
  }
}

// MatMul with every transpose combination, empty extents included.
template <typename T>
void AddMatMul(Cases& c, Rng& rng) {
  for (int iter = 0; iter < 24; ++iter) {
    const int64_t m = rng() % 6, k = rng() % 6, n = rng() % 6;
    const bool ta = iter & 1, tb = iter & 2;
    const Shape sa = ta ? Shape{k, m} : Shape{m, k};
    const Shape sb = tb ? Shape{n, k} : Shape{k, n};
    Tensor a = Make(RandomData<T>(rng, sa.numel()), sa);
    Tensor b = Make(RandomData<T>(rng, sb.numel()), sb);
    c.Add("MatMul", "ta=" + std::to_string(ta) + " tb=" + std::to_string(tb), {a, b},
          ops::MatMul(a, b, ta, tb));
    const int64_t batch = rng() % 4;
    const Shape ba{batch, sa[0], sa[1]}, bb{batch, sb[0], sb[1]};
    Tensor x = Make(RandomData<T>(rng, ba.numel()), ba);
    Tensor y = Make(RandomData<T>(rng, bb.numel()), bb);
    c.Add("BatchMatMul", "ta=" + std::to_string(ta) + " tb=" + std::to_string(tb), {x, y},
          ops::BatchMatMul(x, y, ta, tb));
  }
}

// Concat of 1-3 tensors along a random axis (empty extents included).
template <typename T>
void AddConcat(Cases& c, Rng& rng) {
  for (int iter = 0; iter < 20; ++iter) {
    Shape base = testing::RandomShape(rng, 3, 4);
    if (base.rank() == 0) base = {2};
    const int axis = static_cast<int>(rng() % base.rank());
    std::vector<Tensor> ts;
    for (int p = 0, count = 1 + static_cast<int>(rng() % 3); p < count; ++p) {
      Shape s = base;
      s[axis] = static_cast<int64_t>(rng() % 3);
      if constexpr (std::is_same_v<T, bool>) {
        std::vector<bool> v(static_cast<size_t>(s.numel()));
        for (size_t i = 0; i < v.size(); ++i) v[i] = (rng() & 1) != 0;
        ts.push_back(Make<bool>(v, s));
      } else {
        ts.push_back(Make(EdgeData<T>(rng, s.numel(), true), s));
      }
    }
    c.Add("Concat", "axis=" + std::to_string(axis), ts, ops::Concat(ts, axis));
  }
}

// A random strided view of `base` and its spec for numpy_ref.py (steps
// joined by '/': "t" transpose, "p<dims>" permute, "s<axis>,<begin>,<end>"
// slice, "e<dims>" expand): the op's input is the view, the case's input the base.
std::pair<Tensor, std::string> RandomView(Rng& rng, const Tensor& base) {
  const Shape& s = base.shape();
  const int rank = s.rank();
  auto join = [](const std::vector<int64_t>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
    return out;
  };
  switch (rng() % 4) {
    case 0:
      if (rank == 2) return {base.T(), "t"};
      [[fallthrough]];
    case 1: {  // a permutation (not the identity where rank allows)
      std::vector<int> dims(static_cast<size_t>(rank));
      std::iota(dims.begin(), dims.end(), 0);
      std::shuffle(dims.begin(), dims.end(), rng);
      if (rank > 1 && std::is_sorted(dims.begin(), dims.end())) std::swap(dims[0], dims[1]);
      return {base.Permute(dims), "p" + join({dims.begin(), dims.end()})};
    }
    case 2: {  // a slice on an inner axis, then maybe a transpose
      const int axis = rank - 1;
      const int64_t b = static_cast<int64_t>(rng() % (s[axis] + 1));
      const int64_t e = b + static_cast<int64_t>(rng() % (s[axis] - b + 1));
      Tensor v = base.Slice(axis, b, e);
      std::string spec = "s" + join({axis, b, e});
      if (rank == 2 && (rng() & 1)) return {v.T(), spec + "/t"};
      return {v, spec};
    }
    default: {  // expand: dims of extent 1 repeated, a new leading dim
      std::vector<int64_t> to{static_cast<int64_t>(1 + rng() % 3)};
      for (int d = 0; d < rank; ++d)
        to.push_back(s[d] == 1 ? 1 + static_cast<int64_t>(rng() % 3) : s[d]);
      return {base.Expand(Shape(absl::MakeConstSpan(to))), "e" + join(to)};
    }
  }
}

// Ops of every class on strided views (elementwise read natively, the
// others through compact copies), against numpy on the same views.
template <typename T>
void AddViews(Cases& c, Rng& rng) {
  for (int iter = 0; iter < 40; ++iter) {
    Shape shape = testing::RandomShape(rng, 3, 5);
    if (shape.rank() < 2) shape = {3, static_cast<int64_t>(1 + rng() % 4)};
    if (iter % 3 == 0) shape[static_cast<int>(rng() % shape.rank())] = 1;
    Tensor base = Make(EdgeData<T>(rng, shape.numel(), iter % 2 == 0), shape);
    auto [v, spec] = RandomView(rng, base);
    ASSERT_TRUE(v.ok()) << spec << ": " << v.status();
    const std::string at = "view0=" + spec;
    Tensor other = Make(EdgeData<T>(rng, v.numel(), true), v.shape());
    c.Add("Add", at, {base, other}, ops::Add(v, other));
    c.Add("Add", "view1=" + spec, {other, base}, ops::Add(other, v));
    c.Add("Mul", at, {base, other}, ops::Mul(v, other));
    c.Add("Minimum", at, {base, other}, ops::Minimum(v, other));
    c.Add("Abs", at, {base}, ops::Abs(v));
    c.Add("Eq", at, {base, other}, ops::Eq(v, other));
    std::vector<bool> dc(static_cast<size_t>(v.numel()));
    for (size_t i = 0; i < dc.size(); ++i) dc[i] = (rng() & 1) != 0;
    Tensor cond = Make<bool>(dc, v.shape());
    c.Add("Where", "view1=" + spec, {cond, base, other}, ops::Where(cond, v, other));
    c.Add("Concat", at + " view1=" + spec + " axis=0", {base, base}, ops::Concat({v, v}, 0));
    if (v.shape()[0] > 0) {
      Tensor idx = Make(std::vector<int64_t>{v.shape()[0] - 1, 0}, {2});
      c.Add("IndexSelect", at + " axis=0", {base, idx}, ops::IndexSelect(v, 0, idx));
    }
    if constexpr (std::is_floating_point_v<T>) {
      const int axis = v.dim() - 1;
      c.Add("Exp", at, {base}, ops::Exp(v));
      c.Add("Softmax", at + " axis=" + std::to_string(axis), {base}, ops::Softmax(v, axis));
      if (v.dim() == 2) {
        Tensor w = Make(RandomData<T>(rng, v.shape()[1] * 3), {v.shape()[1], 3});
        c.Add("MatMul", at, {base, w}, ops::MatMul(v, w));
        Tensor wt = Make(RandomData<T>(rng, v.shape()[0] * 3), {v.shape()[0], 3});
        c.Add("MatMul", "view0=t view1=" + spec, {wt, base}, ops::MatMul(wt.T(), v));
      }
    }
  }
}

// uint8, float16, bfloat16 (data: edge floats cast to `d`), and binary ops
// on two dtypes (numpy promotion; numpy_ref.py rounds its float64 reference
// to the result's dtype and compares within that dtype's epsilon).
void AddLowPrecision(Cases& c, Rng& rng, DType d) {
  const bool floating = IsFloating(d);
  auto make = [&](const Shape& s, bool specials) {
    std::vector<float> v = EdgeData<float>(rng, s.numel(), specials);
    if (!floating) {
      for (auto& x : v) x = std::isfinite(x) ? std::fabs(x) * 80 : 255;  // 0..255, wrapping sums
    }
    return ops::Cast(Make(v, s), d);
  };
  constexpr DType kOthers[] = {DType::kBool,    DType::kUInt8,    DType::kInt32,   DType::kInt64,
                               DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64};
  for (int iter = 0; iter < 25; ++iter) {
    auto [sa, sb] = RandomPair(rng);
    Tensor a = make(sa, true), b = make(sb, true);
    c.Add("Eq", "", {a, b}, ops::Eq(a, b));
    c.Add("Ne", "", {a, b}, ops::Ne(a, b));
    c.Add("Lt", "", {a, b}, ops::Lt(a, b));
    c.Add("Ge", "", {a, b}, ops::Ge(a, b));
    c.Add("Minimum", "", {a, b}, ops::Minimum(a, b));
    c.Add("Add", "", {a, b}, ops::Add(a, b));
    c.Add("Mul", "", {a, b}, ops::Mul(a, b));
    std::vector<bool> dc(static_cast<size_t>(sa.numel()));
    for (size_t i = 0; i < dc.size(); ++i) dc[i] = (rng() & 1) != 0;
    Tensor cond = Make<bool>(dc, sa);
    c.Add("Where", "", {cond, a, b}, ops::Where(cond, a, b));
    c.Add("Sum", "", {a}, ops::Sum(a));
    if (floating) {
      c.Add("Abs", "", {a}, ops::Abs(a));
      c.Add("Exp", "", {a}, ops::Exp(a));
      c.Add("Pow", "p=2", {a}, ops::Pow(a, 2.0));
      c.Add("Mean", "", {a}, ops::Mean(a));
    }
    // The other operand of another dtype: promoted (numpy's table, docs/ops.md).
    const DType other = kOthers[rng() % 8];
    if (other != DType::kBool || d != DType::kBool) {
      Tensor o = ops::Cast(Make(EdgeData<float>(rng, sb.numel(), false), sb), other);
      if (other == DType::kBool || d == DType::kBool) {
        c.Add("Eq", "", {a, o}, ops::Eq(a, o));
      } else {
        c.Add("Add", "", {a, o}, ops::Add(a, o));
        c.Add("Mul", "", {o, a}, ops::Mul(o, a));
      }
      c.Add("Minimum", "", {a, o}, ops::Minimum(a, o));
    }
  }
  if (!floating) return;
  for (int iter = 0; iter < 20; ++iter) {
    Shape shape = testing::RandomShape(rng, 3, 6);
    if (shape.rank() == 0) shape = {4};
    if (iter % 7 == 0) shape[0] = 0;
    const int axis = static_cast<int>(rng() % shape.rank());
    std::vector<float> x = EdgeData<float>(rng, shape.numel(), iter % 3 == 0);
    for (auto& v : x) v = v * (1 + iter % 5) + static_cast<float>((iter % 4) * 1000);
    Tensor t = ops::Cast(Make(x, shape), d);
    const std::string at = "axis=" + std::to_string(axis);
    c.Add("Softmax", at, {t}, ops::Softmax(t, axis));
    c.Add("LogSoftmax", at, {t}, ops::LogSoftmax(t, axis));
    c.Add("Gelu", "", {t}, ops::Gelu(t));
    if (shape[axis] > 0) {
      c.Add("Argmax", at + " keepdim=0", {t}, ops::Argmax(t, axis));
      c.Add("Min", at + " keepdim=0", {t}, ops::Min(t, axis));
    }
    const int64_t dd = shape[shape.rank() - 1];
    Tensor w = make({dd}, false), bias = make({dd}, false);
    c.Add("LayerNorm", "eps=1e-05", {t, w, bias}, ops::LayerNorm(t, w, bias, 1e-5));
    const int64_t n = rng() % 6, k = 1 + rng() % 5;
    Tensor logits = make({n, k}, iter % 5 == 0);
    std::vector<int64_t> labels(static_cast<size_t>(n));
    for (auto& l : labels) l = static_cast<int64_t>(rng() % k);
    Tensor lb = Make(labels, {n});
    c.Add("CrossEntropy", "", {logits, lb}, ops::CrossEntropy(logits, lb));
    const int64_t m = rng() % 5, kk = rng() % 40, nn = rng() % 5;
    const bool ta = iter & 1, tb = iter & 2;
    Tensor ma = make(ta ? Shape{kk, m} : Shape{m, kk}, false);
    Tensor mb = make(tb ? Shape{nn, kk} : Shape{kk, nn}, false);
    c.Add("MatMul", "ta=" + std::to_string(ta) + " tb=" + std::to_string(tb), {ma, mb},
          ops::MatMul(ma, mb, ta, tb));
  }
}

void RunNumpy(const Cases& c) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("eagervm_numpy_" + std::to_string(getpid()) + ".txt"))
                               .string();
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    const std::string text = c.text();
    ASSERT_EQ(std::fwrite(text.data(), 1, text.size(), f), text.size());
    std::fclose(f);
  }
  auto [rc, out] = Run("'" + Python() + "' '" + kScript.string() + "' '" + path + "'");
  std::filesystem::remove(path);
  EXPECT_EQ(rc, 0) << out;
  // The script must have seen every case (a script that read nothing passes nothing).
  EXPECT_NE(out.find("cases " + std::to_string(c.count()) + " failures 0"), std::string::npos)
      << out;
}

class NumpyReference : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Python().empty()) {
      GTEST_SKIP() << "no python3 with numpy found ($EAGERVM_PYTHON, python3, /usr/bin/python3): "
                      "the NumPy differential test needs it "
                      "(Debian: apt install python3-numpy; scripts/install_deps.sh installs it)";
    }
  }
};

TEST_F(NumpyReference, ElementwiseCompareSelect) {
  Rng rng(2024);
  Cases c;
  AddElementwise<float>(c, rng);
  AddElementwise<double>(c, rng);
  AddElementwise<int32_t>(c, rng);
  AddElementwise<int64_t>(c, rng);
  RunNumpy(c);
}

TEST_F(NumpyReference, SoftmaxLogSoftmaxCrossEntropy) {
  Rng rng(77);
  Cases c;
  AddSoftmax<float>(c, rng);
  AddSoftmax<double>(c, rng);
  RunNumpy(c);
}

TEST_F(NumpyReference, GeluLayerNormArgIndex) {
  Rng rng(99);
  Cases c;
  AddNnIndex<float>(c, rng);
  AddNnIndex<double>(c, rng);
  RunNumpy(c);
}

TEST_F(NumpyReference, MatMulTransposed) {
  Rng rng(5);
  Cases c;
  AddMatMul<float>(c, rng);
  AddMatMul<double>(c, rng);
  AddMatMul<int32_t>(c, rng);
  AddMatMul<int64_t>(c, rng);
  RunNumpy(c);
}

TEST_F(NumpyReference, StridedViews) {
  Rng rng(30);
  Cases c;
  AddViews<float>(c, rng);
  AddViews<double>(c, rng);
  AddViews<int32_t>(c, rng);
  AddViews<int64_t>(c, rng);
  RunNumpy(c);
}

TEST_F(NumpyReference, LowPrecisionDTypesAndPromotion) {
  Rng rng(16);
  Cases c;
  for (DType d : {DType::kFloat16, DType::kBFloat16, DType::kUInt8, DType::kInt32}) {
    AddLowPrecision(c, rng, d);
  }
  RunNumpy(c);
}

TEST_F(NumpyReference, Concat) {
  Rng rng(6);
  Cases c;
  AddConcat<float>(c, rng);
  AddConcat<int32_t>(c, rng);
  AddConcat<bool>(c, rng);
  RunNumpy(c);
}

}  // namespace
}  // namespace eagervm
