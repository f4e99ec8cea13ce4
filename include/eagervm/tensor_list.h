// TensorList: the tensors an op call returns (ops::Call).
#ifndef EAGERVM_TENSOR_LIST_H_
#define EAGERVM_TENSOR_LIST_H_

#include <iterator>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "eagervm/tensor.h"

namespace eagervm {

// A vector of tensors with room for four inline: returning the outputs of an
// op with up to four allocates nothing beyond the tensors themselves (a
// std::vector would cost one malloc and free per call). It is an
// absl::InlinedVector, so everything a vector offers works (size, [], range
// for, push_back, a span of it).
//
// It converts to std::vector<Tensor>, so code written when ops::Call returned
// a std::vector still compiles:
//   absl::StatusOr<std::vector<Tensor>> r = ops::Call("MyOp", {x});   // copies into a vector
// Prefer `auto` (or absl::StatusOr<TensorList>) to skip that allocation.
class TensorList : public absl::InlinedVector<Tensor, 4> {
 public:
  using absl::InlinedVector<Tensor, 4>::InlinedVector;
  TensorList() = default;

  // NOLINTNEXTLINE(google-explicit-constructor): the compatibility above.
  operator std::vector<Tensor>() const& { return std::vector<Tensor>(begin(), end()); }
  // NOLINTNEXTLINE(google-explicit-constructor)
  operator std::vector<Tensor>() && {
    return std::vector<Tensor>(std::make_move_iterator(begin()), std::make_move_iterator(end()));
  }
};

}  // namespace eagervm

#endif  // EAGERVM_TENSOR_LIST_H_
