// DLPack with libtorch (the consumer and producer most users have): tensors
// cross in both directions without a copy (equal data pointers), writes on
// one side are seen on the other, and each side's deleter releases the other
// side's reference. Built only when find_package(Torch) succeeds
// (tests/CMakeLists.txt); libtorch's headers are heavy, so this is one TU.
#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>
#include <gtest/gtest.h>

#include <vector>

#include "eagervm/dlpack.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

TEST(DLPackTorch, EagervmToTorchSharesMemoryBothWays) {
  Tensor x = FromVector<float>({0, 1, 2, 3, 4, 5}, {2, 3}) + 1.0f;
  absl::StatusOr<DLManagedTensor*> m = ToDLPack(x);
  ASSERT_TRUE(m.ok()) << m.status();
  void* exported = (*m)->dl_tensor.data;
  {
    at::Tensor a = at::fromDLPack(*m);  // takes the DLManagedTensor
    EXPECT_EQ(a.data_ptr(), exported);
    EXPECT_EQ(a.sizes(), at::IntArrayRef({2, 3}));
    EXPECT_EQ(a.scalar_type(), at::kFloat);
    EXPECT_EQ(a.sum().item<float>(), 21.0f);
    a.mul_(10);  // libtorch writes eagervm's storage in place
  }              // libtorch calls the deleter: the export's handle is gone
  absl::StatusOr<std::vector<float>> v = x.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, (std::vector<float>{10, 20, 30, 40, 50, 60}));
  EXPECT_TRUE(Sync().ok());
}

TEST(DLPackTorch, ViewsAndDTypesReachTorch) {
  Tensor base = FromVector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2});
  absl::StatusOr<DLManagedTensor*> m = ToDLPack(base.Slice(1, 3).Reshape({4}));
  ASSERT_TRUE(m.ok()) << m.status();
  at::Tensor a = at::fromDLPack(*m);
  EXPECT_EQ(a.scalar_type(), at::kLong);
  ASSERT_EQ(a.numel(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a[i].item<int64_t>(), 2 + i);  // the view, not the base

  struct Case {
    Tensor t;
    at::ScalarType expected;
  };
  for (Case c : {Case{FromVector<int32_t>({1, 2}, {2}), at::kInt},
                 Case{FromVector<double>({1, 2}, {2}), at::kDouble},
                 // DLPack 0.6 has no bool: {kDLUInt, 8} is uint8 to libtorch 1.13.
                 Case{FromVector<bool>({true, false}, {2}), at::kByte}}) {
    absl::StatusOr<DLManagedTensor*> e = ToDLPack(c.t);
    ASSERT_TRUE(e.ok()) << e.status();
    at::Tensor t = at::fromDLPack(*e);
    EXPECT_EQ(t.scalar_type(), c.expected) << c.t.dtype();
    EXPECT_EQ(t[0].item<double>(), 1.0);
    EXPECT_EQ(t.sum().item<double>(), c.expected == at::kByte ? 1.0 : 3.0);
  }
}

TEST(DLPackTorch, TorchToEagervmSharesMemoryAndReleasesTorchsReference) {
  at::Tensor t = at::ones({4, 3}, at::kFloat);
  void* torch_data = t.data_ptr();
  EXPECT_EQ(t.storage().use_count(), 1);
  {
    Tensor e = FromDLPack(at::toDLPack(t));
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(e.shape(), Shape({4, 3}));
    EXPECT_EQ(e.dtype(), DType::kFloat32);
    EXPECT_EQ(t.storage().use_count(), 2);  // held by the DLManagedTensor
    absl::StatusOr<DLManagedTensor*> back = ToDLPack(e);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ((*back)->dl_tensor.data, torch_data);  // no copy on import
    (*back)->deleter(*back);

    absl::StatusOr<float> sum = ops::Sum(e * 2.0f).Item<float>();
    ASSERT_TRUE(sum.ok()) << sum.status();
    EXPECT_EQ(*sum, 24.0f);
    ASSERT_TRUE(ops::MulScalarInplace(e.Slice(1, 2), 5).ok());  // eagervm writes torch's memory
    ASSERT_TRUE(e.Wait().ok());
    EXPECT_EQ(t[1][2].item<float>(), 5.0f);
    EXPECT_EQ(t[0][0].item<float>(), 1.0f);
  }  // the release (after every queued use) calls libtorch's deleter
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(t.storage().use_count(), 1);
}

TEST(DLPackTorch, TorchIntegersImport) {
  // (libtorch 1.13's toDLPack refuses bool tensors: "Bool type is not
  // supported by dlpack"; eagervm's bool goes the other way as uint8.)
  at::Tensor l = at::arange(6, at::kLong);
  Tensor el = FromDLPack(at::toDLPack(l));
  ASSERT_TRUE(el.ok()) << el.status();
  EXPECT_EQ(el.dtype(), DType::kInt64);
  EXPECT_EQ(ops::Sum(el).Item<int64_t>().value(), 15);
  at::Tensor i = at::full({2, 1, 3}, 7, at::kInt);  // a size-1 dimension
  Tensor ei = FromDLPack(at::toDLPack(i));
  ASSERT_TRUE(ei.ok()) << ei.status();
  EXPECT_EQ(ei.ToVector<int32_t>().value(), std::vector<int32_t>(6, 7));
}

// A transposed torch tensor imports as a strided view of torch's memory (no
// copy): it reads torch's values, and writes through it reach torch.
TEST(DLPackTorch, NonContiguousTorchTensorsImportAsStridedViews) {
  at::Tensor base = at::arange(6, at::kFloat).reshape({2, 3});
  at::Tensor t = base.t();  // transposed: strides (1, 3)
  const auto before = t.storage().use_count();
  Tensor e = FromDLPack(at::toDLPack(t));
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_FALSE(e.is_contiguous());
  EXPECT_EQ(e.shape(), Shape({3, 2}));
  EXPECT_EQ(e.ToVector<float>().value(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  ASSERT_TRUE(ops::MulScalarInplace(e, 10.0).ok());
  ASSERT_TRUE(e.Wait().ok());
  EXPECT_EQ(base[1][2].item<float>(), 50.0f);
  e = Tensor();
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(t.storage().use_count(), before);  // released: torch's deleter ran
}

}  // namespace
}  // namespace eagervm
