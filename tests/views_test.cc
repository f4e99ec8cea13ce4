// Strided views (Tensor::Slice on any axis, Permute, T, Expand, Contiguous):
// values through every op class, writes through views reaching the base and
// nothing else, the copies counted for kernels that need compact input, and
// the errors. Each expectation is computed on the host from the base's
// values and the view's index map, so a kernel that ignored strides fails.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <type_traits>

#include "eagervm/eagervm.h"
#include "eagervm/graph.h"
#include "eagervm/instructions_builder.h"
#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::Values;

// Host view: element i of a view (row-major over `shape`) is base[map[i]].
struct HostView {
  std::vector<int64_t> shape;
  std::vector<int64_t> map;
};

HostView Iota(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  HostView v{shape, std::vector<int64_t>(static_cast<size_t>(n))};
  std::iota(v.map.begin(), v.map.end(), 0);
  return v;
}
// Reindexes `v` as the view with `shape` whose element at index idx is v's
// element at src(idx).
HostView Remap(const HostView& v, std::vector<int64_t> shape,
               const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& src) {
  HostView out{shape, {}};
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<int64_t> s = src(idx);
    int64_t flat = 0;
    for (size_t d = 0; d < v.shape.size(); ++d) flat = flat * v.shape[d] + s[d];
    out.map.push_back(v.map[static_cast<size_t>(flat)]);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}
HostView HSlice(const HostView& v, int axis, int64_t b, int64_t e) {
  std::vector<int64_t> shape = v.shape;
  shape[static_cast<size_t>(axis)] = e - b;
  return Remap(v, shape, [&](std::vector<int64_t> i) {
    i[static_cast<size_t>(axis)] += b;
    return i;
  });
}
HostView HPermute(const HostView& v, const std::vector<int>& dims) {
  std::vector<int64_t> shape;
  for (int d : dims) shape.push_back(v.shape[static_cast<size_t>(d)]);
  return Remap(v, shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> s(i.size());
    for (size_t k = 0; k < dims.size(); ++k) s[static_cast<size_t>(dims[k])] = i[k];
    return s;
  });
}
HostView HExpand(const HostView& v, const std::vector<int64_t>& shape) {
  return Remap(v, shape, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> s;
    const size_t lead = shape.size() - v.shape.size();
    for (size_t d = 0; d < v.shape.size(); ++d) s.push_back(v.shape[d] == 1 ? 0 : i[d + lead]);
    return s;
  });
}
template <typename T>
std::vector<T> Gather(const std::vector<T>& base, const HostView& v) {
  std::vector<T> out;
  for (int64_t m : v.map) out.push_back(base[static_cast<size_t>(m)]);
  return out;
}

std::vector<float> Seq(int64_t n, float scale = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = scale * static_cast<float>(i % 97) - 7;
  return v;
}

// The views under test, on a [4, 6] float base: (tensor view, host view).
struct ViewCase {
  const char* name;
  std::function<Tensor(const Tensor&)> make;
  HostView host;
};
std::vector<ViewCase> Cases() {
  const HostView b = Iota({4, 6});
  return {
      {"Slice(1,1,5)", [](const Tensor& t) { return t.Slice(1, 1, 5); }, HSlice(b, 1, 1, 5)},
      {"T()", [](const Tensor& t) { return t.T(); }, HPermute(b, {1, 0})},
      {"T().Slice(0,2,5)", [](const Tensor& t) { return t.T().Slice(0, 2, 5); },
       HSlice(HPermute(b, {1, 0}), 0, 2, 5)},
      {"Slice(1,0,3).T()", [](const Tensor& t) { return t.Slice(1, 0, 3).T(); },
       HPermute(HSlice(b, 1, 0, 3), {1, 0})},
      {"Slice(0,1,3).Slice(-1,2,6)",
       [](const Tensor& t) { return t.Slice(0, 1, 3).Slice(-1, 2, 6); },
       HSlice(HSlice(b, 0, 1, 3), 1, 2, 6)},
      {"Slice(1,2,3).Expand([4,5])",
       [](const Tensor& t) {
         return t.Slice(1, 2, 3).Expand({4, 5});
       },
       HExpand(HSlice(b, 1, 2, 3), {4, 5})},
  };
}

TEST(Views, MetadataAndValues) {
  const std::vector<float> base = Seq(24);
  Tensor t = Make(base, {4, 6});
  EXPECT_TRUE(t.is_contiguous());
  for (const ViewCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    Tensor v = c.make(t);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v.shape(), Shape(absl::MakeConstSpan(c.host.shape)));
    EXPECT_FALSE(v.is_contiguous());
    EXPECT_EQ(Values<float>(v), Gather(base, c.host));
    Tensor compact = v.Contiguous();
    EXPECT_TRUE(compact.is_contiguous());
    EXPECT_EQ(Values<float>(compact), Gather(base, c.host));
  }
  // Views that stay compact are not strided; Contiguous of them is the same tensor.
  EXPECT_TRUE(t.Slice(0, 1, 3).is_contiguous());
  EXPECT_TRUE(t.Slice(1, 0, 6).is_contiguous());
  EXPECT_TRUE(t.Permute({0, 1}).is_contiguous());
  {  // Contiguous() of a compact tensor is the tensor itself: no copy.
    const uint64_t before = VirtualMachine::Get().GetStats().contiguous_copies;
    EXPECT_TRUE(t.Contiguous().is_contiguous());
    EXPECT_EQ(VirtualMachine::Get().GetStats().contiguous_copies, before);
  }
  EXPECT_EQ(Values<float>(t.Slice(2, 4)), Gather(base, HSlice(Iota({4, 6}), 0, 2, 4)));
  // A 3-D permutation.
  Tensor t3 = Make(Seq(24), {2, 3, 4});
  EXPECT_EQ(Values<float>(t3.Permute({2, 0, 1})),
            Gather(Seq(24), HPermute(Iota({2, 3, 4}), {2, 0, 1})));
  EXPECT_EQ(Values<float>(t3.Permute({-1, 0, 1})), Values<float>(t3.Permute({2, 0, 1})));
}

// Every unary / binary / scalar elementwise op reads each view kind
// natively (no copy counted) and matches the host.
TEST(Views, ElementwiseOpsReadStridesWithoutCopies) {
  const std::vector<float> base = Seq(24, 0.25f);
  Tensor t = Make(base, {4, 6});
  for (const ViewCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    Tensor v = c.make(t);
    const std::vector<float> x = Gather(base, c.host);
    std::vector<float> w(x.size());
    for (size_t i = 0; i < x.size(); ++i) w[i] = static_cast<float>(i) * 0.5f - 1;
    Tensor other = Make(w, v.shape());
    const uint64_t copies = VirtualMachine::Get().GetStats().contiguous_copies;
    Tensor sum = ops::Add(v, other), rsum = ops::Add(other, v), prod = ops::Mul(v, v);
    Tensor relu = ops::Relu(v), ex = ops::Exp(v), sc = ops::MulScalar(v, 3.0);
    Tensor diff = ops::Sub(v, v.Contiguous());
    Tensor lt = ops::Lt(v, other), mn = ops::Minimum(other, v);
    std::vector<float> want_sum(x.size()), want_prod(x.size()), want_relu(x.size()),
        want_exp(x.size()), want_sc(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      want_sum[i] = x[i] + w[i];
      want_prod[i] = x[i] * x[i];
      want_relu[i] = x[i] < 0 ? 0 : x[i];
      want_exp[i] = std::exp(x[i]);
      want_sc[i] = x[i] * 3;
    }
    testing::ExpectNear(Values<float>(sum), want_sum, "Add");
    testing::ExpectNear(Values<float>(rsum), want_sum, "Add reversed");
    testing::ExpectNear(Values<float>(prod), want_prod, "Mul");
    testing::ExpectNear(Values<float>(relu), want_relu, "Relu");
    testing::ExpectNear(Values<float>(ex), want_exp, "Exp");
    testing::ExpectNear(Values<float>(sc), want_sc, "MulScalar");
    testing::ExpectNear(Values<float>(diff), std::vector<float>(x.size(), 0), "Sub");
    std::vector<bool> want_lt;
    std::vector<float> want_mn;
    for (size_t i = 0; i < x.size(); ++i) {
      want_lt.push_back(x[i] < w[i]);
      want_mn.push_back(std::min(x[i], w[i]));
    }
    EXPECT_EQ(Values<bool>(lt), want_lt);
    EXPECT_EQ(Values<float>(mn), want_mn);
    // Only the explicit Contiguous() above copied.
    EXPECT_EQ(VirtualMachine::Get().GetStats().contiguous_copies - copies, 1u);
  }
}

TEST(Views, BroadcastingWithAView) {
  const std::vector<float> base = Seq(24);
  Tensor t = Make(base, {4, 6});
  Tensor col = t.Slice(1, 2, 3);  // [4,1], stride 6
  Tensor row = Make(std::vector<float>{1, 2, 3, 4, 5}, {5});
  Tensor out = ops::Add(col, row);  // [4,5]
  std::vector<float> want;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) want.push_back(base[static_cast<size_t>(i * 6 + 2)] + (j + 1));
  EXPECT_EQ(Values<float>(out), want);
  Tensor tt = ops::Add(t.T(), Make(std::vector<float>{10, 20, 30, 40}, {4}));  // [6,4]
  std::vector<float> want_t;
  for (int j = 0; j < 6; ++j)
    for (int i = 0; i < 4; ++i)
      want_t.push_back(base[static_cast<size_t>(i * 6 + j)] + 10 * (i + 1));
  EXPECT_EQ(Values<float>(tt), want_t);
}

// Transposed operands of at least 32 x 32 are read in tiles through a buffer
// (binary_kernels.cc): every element exact, partial tiles at both edges, the
// view on either side, a broadcast row or column as the other operand, and
// an in-place add of a transposed view.
TEST(Views, LargeTransposedOperandsOfBinaryOps) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{70, 45}, {64, 96}, {33, 100}}) {
    SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
    const std::vector<float> base = Seq(rows * cols, 0.5f);
    Tensor t = Make(base, {rows, cols});
    Tensor v = t.T();                     // [cols, rows], element (i, j) = base[j * cols + i]
    Tensor vs = t.T().Slice(0, 3, cols);  // rows 3.. of the view
    auto at = [&](int64_t i, int64_t j) { return base[static_cast<size_t>(j * cols + i)]; };
    std::vector<float> w(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 97) * 0.25f - 3;
    Tensor other = Make(w, {cols, rows});
    std::vector<float> row(static_cast<size_t>(rows)), column(static_cast<size_t>(cols));
    for (size_t j = 0; j < row.size(); ++j) row[j] = static_cast<float>(j) * 2 + 1;
    for (size_t i = 0; i < column.size(); ++i) column[i] = static_cast<float>(i) + 0.5f;
    std::vector<float> sum, diff, prod_row, quot_col, sliced;
    for (int64_t i = 0; i < cols; ++i) {
      for (int64_t j = 0; j < rows; ++j) {
        const float x = at(i, j), y = w[static_cast<size_t>(i * rows + j)];
        sum.push_back(x + y);
        diff.push_back(y - x);
        prod_row.push_back(x * row[static_cast<size_t>(j)]);
        quot_col.push_back(column[static_cast<size_t>(i)] / x);
        if (i >= 3) sliced.push_back(x + y);
      }
    }
    EXPECT_EQ(Values<float>(ops::Add(v, other)), sum);
    EXPECT_EQ(Values<float>(ops::Sub(other, v)), diff);
    EXPECT_EQ(Values<float>(ops::Mul(v, Make(row, {1, rows}))), prod_row);
    EXPECT_EQ(Values<float>(ops::Div(Make(column, {cols, 1}), v)), quot_col);
    EXPECT_EQ(Values<float>(ops::Add(vs, other.Slice(0, 3, cols))), sliced);
    Tensor acc = Make(w, {cols, rows});
    ASSERT_TRUE(ops::AddInplace(acc, v).ok());
    EXPECT_EQ(Values<float>(acc), sum);
  }
}

// Contiguous() of a transposed view and a write into one (StridedCopy and
// StridedCopyInto, 4-byte elements transposed 8 x 8 in registers), against
// the host transpose of the compact base's values: sizes off the 8 x 8
// blocks, the 16-row steps and the 256-column panels, views whose storage
// rows are longer than their columns, and an 8-byte dtype on the plain walk.
template <typename T>
void CheckTransposedCopies(int64_t rows, int64_t cols) {
  SCOPED_TRACE(::testing::Message() << rows << "x" << cols << " " << sizeof(T) << "-byte");
  std::vector<T> base(static_cast<size_t>(rows * cols)), w(base.size());
  for (size_t i = 0; i < base.size(); ++i) {
    base[i] = static_cast<T>(static_cast<int64_t>(i % 1013) - 500);
    w[i] = static_cast<T>(static_cast<int64_t>((i * 7) % 509) + 2000);
  }
  auto at = [&](const std::vector<T>& b, int64_t r, int64_t c) {
    return b[static_cast<size_t>(r * cols + c)];
  };
  // The view's elements, rows of the transpose from row r0, columns c0..c1 of the base.
  auto transpose = [&](const std::vector<T>& b, int64_t r0, int64_t c0, int64_t c1) {
    std::vector<T> out;
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t r = r0; r < rows; ++r) out.push_back(at(b, r, c));
    return out;
  };
  Tensor t = Make(base, {rows, cols});
  Tensor c = t.T().Contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(Values<T>(c), transpose(base, 0, 0, cols));
  EXPECT_EQ(Values<T>(t.Slice(1, 2, cols - 1).T().Contiguous()), transpose(base, 0, 2, cols - 1));
  EXPECT_EQ(Values<T>(t.Slice(0, 3, rows).T().Contiguous()), transpose(base, 3, 0, cols));
  // CopyInto a transposed view: base(r, c) = w[c * rows + r]; a sliced one
  // writes its own elements only.
  Tensor u = Make(base, {rows, cols});
  ASSERT_TRUE(ops::CopyInto(u.T(), Make(w, {cols, rows})).ok());
  std::vector<T> want(base.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t col = 0; col < cols; ++col)
      want[static_cast<size_t>(r * cols + col)] = w[static_cast<size_t>(col * rows + r)];
  EXPECT_EQ(Values<T>(u), want);
  Tensor s = Make(base, {rows, cols});
  const int64_t sc = cols - 3;  // columns 2 .. cols-1
  std::vector<T> ws(w.begin(), w.begin() + sc * rows);
  ASSERT_TRUE(ops::CopyInto(s.Slice(1, 2, cols - 1).T(), Make(ws, {sc, rows})).ok());
  want = base;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t col = 2; col < cols - 1; ++col)
      want[static_cast<size_t>(r * cols + col)] = ws[static_cast<size_t>((col - 2) * rows + r)];
  EXPECT_EQ(Values<T>(s), want);
}

TEST(Views, TransposedCopiesMatchTheHostTranspose) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{300, 270},
                            {8, 8},
                            {17, 9},
                            {5, 40},
                            {257, 33},
                            {64, 520},
                            {3, 4}}) {
    CheckTransposedCopies<float>(rows, cols);
    CheckTransposedCopies<int32_t>(rows, cols);
    CheckTransposedCopies<double>(rows, cols);
  }
}

// The transposed-operand tiles against the same op on a compact copy of the
// view (the same elementwise function, so the same bits): sizes that are not
// multiples of the 8 x 8 blocks, the 16-row steps or the 256-column panels,
// either operand transposed, a broadcast row, both operands transposed, and a
// sliced view whose columns are not its storage's full rows.
TEST(Views, TransposedTilesMatchTheContiguousOp) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{300, 270},
                            {37, 41},
                            {40, 263},
                            {257, 33},
                            {64, 512},
                            {33, 129}}) {
    SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
    std::vector<float> base(static_cast<size_t>(rows * cols)), w(base.size());
    for (size_t i = 0; i < base.size(); ++i) {
      base[i] = static_cast<float>(i % 1013) * 0.37f - 11.0f;
      w[i] = static_cast<float>((i * 7) % 509) * 0.21f + 0.5f;
    }
    Tensor v = Make(base, {rows, cols}).T();  // [cols, rows]
    Tensor vc = v.Contiguous();
    Tensor other = Make(w, {cols, rows});
    Tensor other_t = Make(w, {rows, cols}).T();  // also transposed
    std::vector<float> rw(static_cast<size_t>(rows));
    for (size_t j = 0; j < rw.size(); ++j) rw[j] = static_cast<float>(j) * 0.75f + 1.0f;
    Tensor row = Make(rw, {1, rows});
    EXPECT_EQ(Values<float>(ops::Add(v, other)), Values<float>(ops::Add(vc, other)));
    EXPECT_EQ(Values<float>(ops::Add(other, v)), Values<float>(ops::Add(other, vc)));
    EXPECT_EQ(Values<float>(ops::Sub(v, other)), Values<float>(ops::Sub(vc, other)));
    EXPECT_EQ(Values<float>(ops::Sub(other, v)), Values<float>(ops::Sub(other, vc)));
    EXPECT_EQ(Values<float>(ops::Mul(v, other)), Values<float>(ops::Mul(vc, other)));
    EXPECT_EQ(Values<float>(ops::Div(v, other)), Values<float>(ops::Div(vc, other)));
    EXPECT_EQ(Values<float>(ops::Div(other, v)), Values<float>(ops::Div(other, vc)));
    EXPECT_EQ(Values<float>(ops::Mul(v, row)), Values<float>(ops::Mul(vc, row)));
    EXPECT_EQ(Values<float>(ops::Sub(row, v)), Values<float>(ops::Sub(row, vc)));
    EXPECT_EQ(Values<float>(ops::Add(v, other_t)),
              Values<float>(ops::Add(vc, other_t.Contiguous())));
    Tensor vs = v.Slice(1, 5, rows - 2);  // columns 5 .. rows-2 of the view
    Tensor os = other.Slice(1, 5, rows - 2);
    EXPECT_EQ(Values<float>(ops::Add(vs, os)), Values<float>(ops::Add(vs.Contiguous(), os)));
    Tensor acc = Make(w, {cols, rows});
    ASSERT_TRUE(ops::AddInplace(acc, v).ok());
    EXPECT_EQ(Values<float>(acc), Values<float>(ops::Add(other, vc)));
  }
}

// Unary and tensor-scalar ops on a transposed view: float32 Relu, Neg and
// Add/Sub/Mul/DivScalar transposed in registers (transposed_tiles.h), the
// others on panels copied into row-major buffers (strided_rows.h's
// ForEachTransposedRow). Against the same op on a compact copy of the view,
// bit for bit (NaN, -0 and infinities among the floats), for sizes that are
// not multiples of the 8 x 8 blocks, the 16-row steps or the 256-column
// panels, 4-byte dtypes (copied in AVX2 registers) and 8-byte ones (element
// by element), and a transposed view sliced on both axes.
template <typename T>
void ExpectSameBits(const Tensor& got, const Tensor& want, const char* op) {
  const std::vector<T> g = Values<T>(got), w = Values<T>(want);
  ASSERT_EQ(g.size(), w.size()) << op;
  EXPECT_EQ(std::memcmp(g.data(), w.data(), g.size() * sizeof(T)), 0) << op;
}

template <typename T>
void CheckTransposedUnary(int64_t rows, int64_t cols) {
  SCOPED_TRACE(::testing::Message() << rows << "x" << cols << " " << sizeof(T)
                                    << (std::is_floating_point_v<T> ? " float" : " int"));
  std::vector<T> base(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < base.size(); ++i) {
    base[i] = static_cast<T>(static_cast<double>(i % 1013) * 0.37 - 180.0);
    if constexpr (std::is_floating_point_v<T>) {
      const T special[] = {std::numeric_limits<T>::quiet_NaN(), T(-0.0),
                           std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity()};
      if (i % 7 == 3) base[i] = special[(i / 7) % 4];
    }
  }
  const Tensor t = Make(base, {rows, cols});
  for (const Tensor& v : {t.T(), t.T().Slice(0, 1, cols).Slice(1, 2, rows)}) {
    const Tensor vc = v.Contiguous();
    ExpectSameBits<T>(ops::Relu(v), ops::Relu(vc), "Relu");
    ExpectSameBits<T>(ops::Neg(v), ops::Neg(vc), "Neg");
    ExpectSameBits<T>(ops::AddScalar(v, Scalar(-2)), ops::AddScalar(vc, Scalar(-2)), "AddScalar");
    ExpectSameBits<T>(ops::SubScalar(v, Scalar(5)), ops::SubScalar(vc, Scalar(5)), "SubScalar");
    ExpectSameBits<T>(ops::MulScalar(v, Scalar(3)), ops::MulScalar(vc, Scalar(3)), "MulScalar");
    ExpectSameBits<T>(ops::DivScalar(v, Scalar(7)), ops::DivScalar(vc, Scalar(7)), "DivScalar");
    if constexpr (std::is_floating_point_v<T>) {
      ExpectSameBits<T>(ops::Exp(v), ops::Exp(vc), "Exp");
      ExpectSameBits<T>(ops::Tanh(v), ops::Tanh(vc), "Tanh");
      ExpectSameBits<T>(T(2) * v, T(2) * vc, "2 * v");
    }
  }
}

TEST(Views, UnaryAndScalarOpsOnTransposedViewsMatchTheContiguousOp) {
  for (auto [rows, cols] :
       {std::pair<int64_t, int64_t>{300, 270}, {37, 41}, {40, 263}, {257, 33}, {5, 3}, {600, 9}}) {
    CheckTransposedUnary<float>(rows, cols);
    CheckTransposedUnary<int32_t>(rows, cols);
    CheckTransposedUnary<double>(rows, cols);
    CheckTransposedUnary<int64_t>(rows, cols);
  }
}

// Column Slices of at least 4 MiB take the row walk with prefetches
// (binary_kernels.cc's GappedRows): against a scalar loop over the base,
// rows that are not multiples of its 16-line chunks, long and short rows,
// either or both operands sliced, a broadcast row, float, double and int32,
// AddInplace with a sliced other, and a unary and a tensor-scalar op.
template <typename T>
void CheckGappedRows(int64_t rows, int64_t base_cols, int64_t c0, int64_t c1) {
  SCOPED_TRACE(::testing::Message()
               << rows << "x" << base_cols << " [" << c0 << ", " << c1 << ") " << sizeof(T));
  const int64_t w = c1 - c0;
  std::vector<T> base(static_cast<size_t>(rows * base_cols)), other(static_cast<size_t>(rows * w));
  for (size_t i = 0; i < base.size(); ++i) base[i] = static_cast<T>(i % 1013) * T(3) - T(700);
  for (size_t i = 0; i < other.size(); ++i) other[i] = static_cast<T>((i * 7) % 509) + T(1);
  std::vector<T> rw(static_cast<size_t>(w));
  for (size_t j = 0; j < rw.size(); ++j) rw[j] = static_cast<T>(j % 31) + T(2);
  Tensor v = Make(base, {rows, base_cols}).Slice(1, c0, c1);
  Tensor v2 = Make(base, {rows, base_cols}).Slice(1, base_cols - w, base_cols);
  Tensor o = Make(other, {rows, w}), row = Make(rw, {1, w});
  std::vector<T> sum, diff, quot, both, prod_row, neg, times3;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < w; ++c) {
      const T x = base[static_cast<size_t>(r * base_cols + c0 + c)];
      const T x2 = base[static_cast<size_t>(r * base_cols + base_cols - w + c)];
      const T y = other[static_cast<size_t>(r * w + c)];
      sum.push_back(x + y);
      diff.push_back(y - x);
      quot.push_back(x / y);
      both.push_back(x + x2);
      prod_row.push_back(x * rw[static_cast<size_t>(c)]);
      neg.push_back(-x);
      times3.push_back(x * T(3));
    }
  }
  EXPECT_EQ(Values<T>(ops::Add(v, o)), sum);
  EXPECT_EQ(Values<T>(ops::Sub(o, v)), diff);
  EXPECT_EQ(Values<T>(ops::Div(v, o)), quot);
  EXPECT_EQ(Values<T>(ops::Add(v, v2)), both);
  EXPECT_EQ(Values<T>(ops::Mul(v, row)), prod_row);
  EXPECT_EQ(Values<T>(ops::Neg(v)), neg);
  EXPECT_EQ(Values<T>(ops::MulScalar(v, Scalar(3))), times3);
  Tensor acc = Make(other, {rows, w});
  ASSERT_TRUE(ops::AddInplace(acc, v).ok());
  EXPECT_EQ(Values<T>(acc), sum);
}

TEST(Views, ColumnSlicesOfLargeTensorsMatchAScalarLoop) {
  CheckGappedRows<float>(900, 1500, 3, 1203);    // 4800-byte rows, 4.1 MiB
  CheckGappedRows<float>(7200, 400, 250, 399);   // 596-byte rows: 14 rows ahead
  CheckGappedRows<double>(600, 1100, 1, 1098);   // 8776-byte rows
  CheckGappedRows<int32_t>(1800, 700, 77, 690);  // int32
}

// Ops whose kernels need compact input get a copy (counted) and the right values.
TEST(Views, OtherOpClassesGetCompactCopies) {
  const std::vector<float> base = Seq(24, 0.1f);
  Tensor t = Make(base, {4, 6});
  Tensor v = t.T();  // [6,4]
  const std::vector<float> x = Gather(base, HPermute(Iota({4, 6}), {1, 0}));
  const uint64_t copies = VirtualMachine::Get().GetStats().contiguous_copies;
  // Reductions along each axis.
  std::vector<float> want_sum0(4, 0), want_sum1(6, 0);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) {
      want_sum0[static_cast<size_t>(j)] += x[static_cast<size_t>(i * 4 + j)];
      want_sum1[static_cast<size_t>(i)] += x[static_cast<size_t>(i * 4 + j)];
    }
  testing::ExpectNear(Values<float>(ops::Sum(v, 0)), want_sum0, "Sum 0");
  testing::ExpectNear(Values<float>(ops::Sum(v, 1)), want_sum1, "Sum 1");
  // Softmax along the last axis of the view.
  std::vector<float> want_sm(x.size());
  for (int i = 0; i < 6; ++i) {
    float mx = -1e30f, z = 0;
    for (int j = 0; j < 4; ++j) mx = std::max(mx, x[static_cast<size_t>(i * 4 + j)]);
    for (int j = 0; j < 4; ++j) z += std::exp(x[static_cast<size_t>(i * 4 + j)] - mx);
    for (int j = 0; j < 4; ++j)
      want_sm[static_cast<size_t>(i * 4 + j)] =
          std::exp(x[static_cast<size_t>(i * 4 + j)] - mx) / z;
  }
  testing::ExpectNear(Values<float>(ops::Softmax(v, 1)), want_sm, "Softmax");
  // IndexSelect of rows of the view.
  Tensor idx = Make(std::vector<int64_t>{5, 0, 3}, {3});
  std::vector<float> want_is;
  for (int r : {5, 0, 3})
    for (int j = 0; j < 4; ++j) want_is.push_back(x[static_cast<size_t>(r * 4 + j)]);
  EXPECT_EQ(Values<float>(ops::IndexSelect(v, 0, idx)), want_is);
  // Concat of a view and a compact tensor along axis 0.
  Tensor cat = ops::Concat({v, t.Slice(0, 0, 1)}, 0);  // [6,4] + [1,6]? no: shapes must agree
  EXPECT_FALSE(cat.ok());
  Tensor cat2 = ops::Concat({t.Slice(1, 0, 2), t.Slice(1, 4, 6)}, 1);  // [4,4]
  std::vector<float> want_cat;
  for (int i = 0; i < 4; ++i)
    for (int j : {0, 1, 4, 5}) want_cat.push_back(base[static_cast<size_t>(i * 6 + j)]);
  EXPECT_EQ(Values<float>(cat2), want_cat);
  // Comparisons and Where (compact copies).
  Tensor gt = ops::Gt(v, Make(std::vector<float>(24, 0.5f), {6, 4}));
  std::vector<bool> want_gt;
  for (float e : x) want_gt.push_back(e > 0.5f);
  EXPECT_EQ(Values<bool>(gt), want_gt);
  Tensor wh = ops::Where(gt, v, Make(std::vector<float>(24, -1.0f), {6, 4}));
  std::vector<float> want_wh;
  for (float e : x) want_wh.push_back(e > 0.5f ? e : -1.0f);
  EXPECT_EQ(Values<float>(wh), want_wh);
  EXPECT_GE(VirtualMachine::Get().GetStats().contiguous_copies - copies, 6u);
}

TEST(Views, MatMulOfATransposedViewUsesTheFlagNotACopy) {
  const std::vector<float> av = Seq(12, 0.5f), bv = Seq(20, 0.25f);
  Tensor a = Make(av, {4, 3});  // a.T() is [3,4]
  Tensor b = Make(bv, {5, 4});  // b.T() is [4,5]
  const uint64_t copies = VirtualMachine::Get().GetStats().contiguous_copies;
  Tensor c = ops::MatMul(a.T(), b.T());  // [3,5]
  Tensor c2 = ops::MatMul(a.T(), b, false, true);
  Tensor c3 = ops::MatMul(a.T(), b.T().Contiguous());                          // [3,5]
  EXPECT_EQ(VirtualMachine::Get().GetStats().contiguous_copies - copies, 1u);  // c3's Contiguous
  std::vector<float> want(15, 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 4; ++k)
        want[static_cast<size_t>(i * 5 + j)] +=
            av[static_cast<size_t>(k * 3 + i)] * bv[static_cast<size_t>(j * 4 + k)];
  testing::ExpectNear(Values<float>(c), want, "MatMul(a.T(), b.T())");
  testing::ExpectNear(Values<float>(c2), want, "MatMul(a.T(), b, false, true)");
  testing::ExpectNear(Values<float>(c3), want, "MatMul(a.T(), compact b.T())");
  // A non-transposed strided view (a column slice) is copied and still right.
  Tensor s = ops::MatMul(b.Slice(1, 1, 4), a.Slice(0, 0, 3));  // [5,3] @ [3,3]
  std::vector<float> want_s(15, 0);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k)
        want_s[static_cast<size_t>(i * 3 + j)] +=
            bv[static_cast<size_t>(i * 4 + 1 + k)] * av[static_cast<size_t>(k * 3 + j)];
  testing::ExpectNear(Values<float>(s), want_s, "MatMul(column slice)");
  // BatchMatMul with a Permute of its last two dims.
  Tensor x = Make(Seq(24, 0.1f), {2, 4, 3});
  Tensor y = Make(Seq(24, 0.2f), {2, 4, 3});
  Tensor bm = ops::BatchMatMul(x.Permute({0, 2, 1}), y);  // [2,3,3]
  Tensor bm_ref = ops::BatchMatMul(x, y, true, false);
  testing::ExpectNear(Values<float>(bm), Values<float>(bm_ref), "BatchMatMul");
}

// In-place ops and CopyInto through a view write exactly the view's elements.
TEST(Views, WritesThroughViewsReachTheBaseAndNothingElse) {
  const std::vector<float> base = Seq(24);
  for (const ViewCase& c : Cases()) {
    if (std::string(c.name).find("Expand") != std::string::npos) continue;
    SCOPED_TRACE(c.name);
    const int64_t n = static_cast<int64_t>(c.host.map.size());
    std::vector<float> w(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i)] = 100.0f + static_cast<float>(i);
    auto check = [&](const char* op,
                     const std::function<absl::Status(const Tensor&, const Tensor&)>& f,
                     const std::function<float(float, float)>& ref) {
      Tensor t = Make(base, {4, 6});
      Tensor v = c.make(t);
      Tensor other = Make(w, v.shape());
      ASSERT_TRUE(f(v, other).ok()) << op;
      std::vector<float> want = base;
      for (int64_t i = 0; i < n; ++i) {
        const auto m = static_cast<size_t>(c.host.map[static_cast<size_t>(i)]);
        want[m] = ref(base[m], w[static_cast<size_t>(i)]);
      }
      testing::ExpectNear(Values<float>(t), want, op);
      // The view reads back the written values.
      testing::ExpectNear(Values<float>(v), Gather(want, c.host), op);
    };
    check(
        "AddInplace", [](const Tensor& v, const Tensor& o) { return ops::AddInplace(v, o); },
        [](float a, float b) { return a + b; });
    check(
        "SubInplace", [](const Tensor& v, const Tensor& o) { return ops::SubInplace(v, o); },
        [](float a, float b) { return a - b; });
    check(
        "Axpy", [](const Tensor& v, const Tensor& o) { return ops::Axpy(v, 2.0, o); },
        [](float a, float b) { return a + 2 * b; });
    check(
        "CopyInto", [](const Tensor& v, const Tensor& o) { return ops::CopyInto(v, o); },
        [](float, float b) { return b; });
    check(
        "MulScalarInplace",
        [](const Tensor& v, const Tensor&) { return ops::MulScalarInplace(v, -3.0); },
        [](float a, float) { return -3 * a; });
    check(
        "FillInplace", [](const Tensor& v, const Tensor&) { return ops::FillInplace(v, 9.0); },
        [](float, float) { return 9.0f; });
    check(
        "operator*=",
        [](const Tensor& v, const Tensor&) {
          Tensor h = v;
          h *= 2.0;
          return h.status();
        },
        [](float a, float) { return 2 * a; });
    // The view added to itself (the same elements read and written).
    check(
        "x += x", [](const Tensor& v, const Tensor&) { return ops::AddInplace(v, v); },
        [](float a, float) { return 2 * a; });
    // A write from another view of the same base that overlaps the written one.
    check(
        "x += base view",
        [](const Tensor& v, const Tensor&) { return ops::AddInplace(v, v.Contiguous()); },
        [](float a, float) { return 2 * a; });
  }
  // A transposed view written from the compact base it overlaps: read as before the op.
  Tensor sq = Make(Seq(9), {3, 3});
  ASSERT_TRUE(ops::AddInplace(sq.T(), sq).ok());
  std::vector<float> s0 = Seq(9), want(9);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      want[static_cast<size_t>(j * 3 + i)] =
          s0[static_cast<size_t>(j * 3 + i)] + s0[static_cast<size_t>(i * 3 + j)];
  EXPECT_EQ(Values<float>(sq), want);
}

TEST(Views, ErrorsNameTheOpAndShapes) {
  Tensor t = Make(Seq(24), {4, 6});
  auto expect_error = [](const Tensor& r, const std::vector<std::string>& parts) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
    for (const std::string& p : parts)
      EXPECT_NE(r.status().message().find(p), std::string::npos) << r.status() << " lacks " << p;
  };
  expect_error(t.Slice(2, 0, 1), {"Slice", "axis 2", "[4,6]"});
  expect_error(t.Slice(1, 3, 7), {"Slice", "dim 1", "[4,6]"});
  expect_error(t.Permute({0, 0}), {"Permute", "not a permutation", "[4,6]"});
  expect_error(t.Permute({0}), {"Permute", "[4,6]"});
  expect_error(t.Permute({0, 2}), {"Permute", "[4,6]"});
  expect_error(Make(Seq(24), {2, 3, 4}).T(), {"T:", "[2,3,4]"});
  expect_error(t.Expand({4, 12}), {"Expand", "[4,6]", "[4,12]"});
  expect_error(t.Expand({6}), {"Expand", "[4,6]", "[6]"});
  expect_error(t.T().Reshape({24}), {"Reshape", "Contiguous"});
  // Shapes as the caller holds them: a transposed view's, not its base's.
  expect_error(ops::MatMul(t.T(), t.T()), {"MatMul", "a [6,4] @ b [6,4]", "4 != 6"});
  expect_error(ops::MatMul(t.T(), t.T().Slice(1, 0, 3), false, true),
               {"MatMul", "a [6,4] @ b [6,3].T", "4 != 3"});
  Tensor t3 = Make(Seq(24), {2, 3, 4});
  expect_error(ops::BatchMatMul(t3.Permute({0, 2, 1}), t3.Permute({0, 2, 1})),
               {"BatchMatMul", "a [2,4,3] @ b [2,4,3]"});
  {
    const absl::Status in = ops::AddInplace(t.T(), t);
    EXPECT_NE(in.message().find("AddInplace: cannot broadcast other [4,6] into self [6,4]"),
              std::string::npos)
        << in;
  }
  // An Expand view cannot be written: rejected on the calling thread, naming the op.
  Tensor e = Make(Seq(6), {1, 6}).Expand({3, 6});
  absl::Status s = ops::AddInplace(e, Make(Seq(18), {3, 6}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("AddInplace"), std::string::npos) << s;
  EXPECT_NE(s.message().find("Expand"), std::string::npos) << s;
  s = ops::CopyInto(e, Make(Seq(18), {3, 6}));
  EXPECT_NE(s.message().find("CopyInto"), std::string::npos) << s;
  s = ops::FillInplace(e, 1.0);
  EXPECT_NE(s.message().find("FillInplace"), std::string::npos) << s;
  // Raw access to a strided view's memory is refused (its bytes are not the view).
  s = vm::PhysicalRun([&](vm::InstructionsBuilder* b) {
    return b->AccessBlobByCallback(
        t.T(), [](void*, size_t) {}, vm::AccessMode::kRead);
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST(Views, IntegerAndBoolViews) {
  std::vector<int32_t> iv(24);
  std::iota(iv.begin(), iv.end(), -5);
  Tensor t = Make(iv, {4, 6});
  const HostView h = HPermute(Iota({4, 6}), {1, 0});
  std::vector<int32_t> want;
  for (int64_t m : h.map) want.push_back(iv[static_cast<size_t>(m)] * 2);
  EXPECT_EQ(Values<int32_t>(ops::Add(t.T(), t.T())), want);
  // Integer division by a view with a zero only in its gaps is no error.
  Tensor d = Make(std::vector<int32_t>{4, 0, 2, 0}, {2, 2});
  Tensor q = ops::Div(Make(std::vector<int32_t>{8, 8}, {2}), d.Slice(1, 0, 1).Reshape({2}));
  EXPECT_FALSE(q.ok());  // Reshape of a strided view is refused
  Tensor q2 = ops::Div(Make(std::vector<int32_t>{8, 8}, {2, 1}), d.Slice(1, 0, 1));
  EXPECT_EQ(Values<int32_t>(q2), (std::vector<int32_t>{2, 4}));
  Tensor q3 = ops::Div(Make(std::vector<int32_t>{8, 8}, {2, 1}), d.Slice(1, 1, 2));
  EXPECT_FALSE(q3.Wait().ok());  // the zeros are in the view
  std::vector<bool> bv = {true, false, false, true, true, false};
  Tensor b = FromVector<bool>(bv, {2, 3});
  EXPECT_EQ(Values<bool>(b.T()), (std::vector<bool>{true, true, false, true, false, false}));
}

TEST(Views, DeviceCopyAndEmptyViews) {
  Tensor t = Make(Seq(24), {4, 6});
  Tensor e = t.Slice(1, 2, 2);
  EXPECT_EQ(e.shape(), Shape({4, 0}));
  EXPECT_EQ(Values<float>(ops::Add(e, e)).size(), 0u);
  EXPECT_EQ(Values<float>(t.T().To(Device::Cpu())), Values<float>(t.T().Contiguous()));
}

// An empty tensor may have any extents beside its zero: their products
// overflow int64, and views of it must not compute with them (UBSan checks
// it in the sanitizer build; the validation fuzzer found it).
TEST(Views, EmptyTensorsWithHugeExtents) {
  constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();
  Tensor t = Full({0, 5, kHuge}, 1.0, DType::kFloat32);
  ASSERT_TRUE(t.status().ok()) << t.status();
  EXPECT_TRUE(t.is_contiguous());
  Tensor s = t.Slice(1, 1, 3);
  ASSERT_TRUE(s.status().ok()) << s.status();
  EXPECT_EQ(s.shape(), Shape({0, 2, kHuge}));
  Tensor p = t.Permute({2, 0, 1});
  ASSERT_TRUE(p.status().ok()) << p.status();
  EXPECT_EQ(Values<float>(ops::Add(p, p)).size(), 0u);
  Tensor u = Full({kHuge, 0}, 1.0, DType::kFloat32);
  EXPECT_EQ(Values<float>(ops::MulScalar(u.T(), 2.0)).size(), 0u);
}

// A strided view that cannot be read is named by its own shape, eagerly
// and in a graph, not by the span of storage it covers.
TEST(Views, ARefusedViewIsNamedByItsOwnShape) {
  Tensor never = Empty({4, 6}, DType::kFloat32);
  Tensor x = Full({6, 4}, 1.0, DType::kFloat32);
  const std::string want = "Add: input 0 [6,4] was never written";
  absl::Status eager = ops::Add(never.T(), x).Wait();
  EXPECT_NE(eager.message().find(want), std::string::npos) << eager;
  absl::StatusOr<Graph> g =
      Graph::Capture({TensorMeta{Shape({6, 4}), DType::kFloat32, Device::Cpu()}},
                     [&](const std::vector<Tensor>& in) {
                       return std::vector<Tensor>{ops::Add(never.T(), in[0])};
                     });
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<Tensor>> out = g->Run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  absl::Status graph = (*out)[0].Wait();
  EXPECT_NE(graph.message().find(want), std::string::npos) << graph;
  (void)Sync();
}

TEST(Views, GraphCaptureOfViewsEqualsEager) {
  auto fn = [](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor x = in[0];
    Tensor a = ops::Add(x.T(), x.Slice(1, 0, 4).Permute({1, 0}).Contiguous().T().T());
    Tensor b = ops::Softmax(x.Slice(1, 1, 4), 1);
    Tensor c = ops::MatMul(x.T(), x);
    Tensor y = ops::Mul(x, x);
    absl::Status s = ops::AddInplace(y.Slice(1, 0, 2), x.Slice(1, 2, 4));
    if (!s.ok()) return {Tensor::Error(s)};
    return {a, b, c, y, x.T()};
  };
  Tensor x = Make(Seq(16, 0.3f), {4, 4});
  std::vector<Tensor> eager = fn({x});
  absl::StatusOr<Graph> g = Graph::Capture({x.meta()}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  for (int run = 0; run < 2; ++run) {
    Tensor input = Make(Seq(16, 0.3f), {4, 4});
    absl::StatusOr<std::vector<Tensor>> got = g->Run({input});
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), eager.size());
    for (size_t i = 0; i < eager.size(); ++i) {
      testing::ExpectNear(Values<float>((*got)[i]), Values<float>(eager[i]),
                          "graph output " + std::to_string(i));
    }
  }
  // The last output, x.T(), is a strided view of the run's input.
  Tensor in2 = Make(Seq(16, 0.3f), {4, 4});
  absl::StatusOr<std::vector<Tensor>> again = g->Run({in2});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->back().is_contiguous());
  // A strided view cannot be bound as an input (the plan reads compact bytes).
  absl::StatusOr<std::vector<Tensor>> from_view = g->Run({in2.T()});
  EXPECT_EQ(from_view.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(from_view.status().message().find("Contiguous"), std::string::npos);
  absl::StatusOr<std::vector<Tensor>> compact = g->Run({in2.T().Contiguous()});
  ASSERT_TRUE(compact.ok()) << compact.status();
  std::vector<Tensor> eager_t = fn({in2.T()});
  for (size_t i = 0; i < eager_t.size(); ++i) {
    testing::ExpectNear(Values<float>((*compact)[i]), Values<float>(eager_t[i]),
                        "graph output from a compact copy of a view " + std::to_string(i));
  }
}

}  // namespace
}  // namespace eagervm
