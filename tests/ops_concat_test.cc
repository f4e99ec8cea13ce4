// Concat and Split along every axis against a host reference (round trip
// included), empty parts, and their bad-input errors.
#include <gtest/gtest.h>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::QueueProbe;
using testing::RandomData;
using testing::Rng;
using testing::Values;

// Element `i` of the concatenation of `parts` (row-major, shapes equal off `axis`).
template <typename T>
std::vector<T> RefConcat(const std::vector<std::vector<T>>& parts, const std::vector<Shape>& shapes,
                         int axis) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shapes[0][d];
  for (int d = axis + 1; d < shapes[0].rank(); ++d) inner *= shapes[0][d];
  std::vector<T> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t p = 0; p < parts.size(); ++p) {
      const int64_t block = shapes[p][axis] * inner;
      out.insert(out.end(), parts[p].begin() + o * block, parts[p].begin() + (o + 1) * block);
    }
  }
  return out;
}

TEST(Concat, EveryAxisMatchesReferenceAndSplitUndoesIt) {
  Rng rng(21);
  for (int iter = 0; iter < 30; ++iter) {
    Shape base = testing::RandomShape(rng, 4, 4);
    if (base.rank() == 0) base = {3};
    const int axis = static_cast<int>(rng() % base.rank());
    const int count = 1 + static_cast<int>(rng() % 4);
    std::vector<std::vector<int64_t>> data;
    std::vector<Shape> shapes;
    std::vector<Tensor> ts;
    for (int p = 0; p < count; ++p) {
      Shape s = base;
      s[axis] = static_cast<int64_t>(rng() % 4);  // 0 included
      shapes.push_back(s);
      data.push_back(RandomData<int64_t>(rng, s.numel()));
      ts.push_back(Make(data.back(), s));
    }
    Tensor c = ops::Concat(ts, axis - (iter % 2) * base.rank());
    ASSERT_TRUE(c.ok()) << c.status();
    Shape want_shape = base;
    want_shape[axis] = 0;
    for (const Shape& s : shapes) want_shape[axis] += s[axis];
    ASSERT_EQ(c.shape(), want_shape);
    const auto want = RefConcat(data, shapes, axis);
    ASSERT_EQ(Values<int64_t>(c), want) << base << " axis " << axis;
    // Split of `count` equal parts is the inverse of Concat of equal parts.
    Shape eq = base;
    eq[axis] = 2;
    std::vector<Tensor> equal_parts;
    std::vector<std::vector<float>> fdata;
    for (int p = 0; p < count; ++p) {
      fdata.push_back(RandomData<float>(rng, eq.numel()));
      equal_parts.push_back(Make(fdata.back(), eq));
    }
    std::vector<Tensor> back = ops::Split(ops::Concat(equal_parts, axis), count, axis);
    ASSERT_EQ(back.size(), static_cast<size_t>(count));
    for (int p = 0; p < count; ++p) {
      ASSERT_EQ(back[p].shape(), eq);
      ASSERT_EQ(Values<float>(back[p]), fdata[p]) << "part " << p;
    }
  }
}

TEST(Concat, Errors) {
  Tensor f23 = Full({2, 3}, 1.0f, DType::kFloat32);
  Tensor f24 = Full({2, 4}, 1.0f, DType::kFloat32);
  Tensor i23 = Full({2, 3}, 1, DType::kInt32);
  Tensor f3 = Full({3}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  QueueProbe probe;
  const std::pair<Tensor, const char*> cases[] = {
      {ops::Concat({}, 0), "Concat: needs at least one tensor, got none"},
      {ops::Concat({f23, f24}, 0), "Concat: xs[1] [2,4] does not match xs[0] [2,3] outside axis 0"},
      {ops::Concat({f23, f3}, 1), "Concat: xs[1] [3] does not match xs[0] [2,3] outside axis 1"},
      {ops::Concat({f23, i23}, 0), "Concat: xs[1] is int32 on cpu but xs[0] is float32 on cpu"},
      {ops::Concat({f23, f23}, 2), "Concat: axis 2 is out of range for [2,3]"},
      {ops::Concat({f23, Tensor()}, 0), "Concat: argument 'xs[1]' is an undefined tensor"},
      {ops::Split(f23, 2, 1)[1],
       "Split: axis 1 of [2,3] (size 3) cannot be split into 2 equal parts"},
      {ops::Split(f23, 0, 0)[0],
       "Split: axis 0 of [2,3] (size 2) cannot be split into 0 equal parts"},
      {ops::Split(f23, 1, -3)[0], "Split: axis -3 is out of range for [2,3]"},
  };
  EXPECT_EQ(probe.Count(), 0u);
  for (const auto& [t, message] : cases) {
    ASSERT_FALSE(t.ok()) << message;
    EXPECT_NE(t.status().message().find(message), std::string::npos)
        << "got '" << t.status().message() << "', want '" << message << "'";
  }
  EXPECT_EQ(ops::Split(f23, 5, 1).size(), 5u);  // every part carries the rejection
}

}  // namespace
}  // namespace eagervm
