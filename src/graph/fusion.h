// Elementwise-chain fusion: a rewrite of the captured Program before the
// plan's passes. Consecutive float32 elementwise nodes on one CPU stream
// whose results feed the next (Add Sub Mul Div Maximum, their Scalar forms,
// Relu, Neg) become one node that evaluates the chain tile by tile, each
// tile kept in L1. A link's result that nothing outside the chain reads is
// fused away (never allocated); one read later is written out too.
//
// Bitwise equal to the unfused kernels: each op is applied to whole rows
// with the same scalar functions (kernels/cpu/elementwise.h), one op per
// loop, so no contraction or reordering is possible. Only ops that cannot
// fail at run time on float32 are fused. Errors follow the unfused ops: the
// fused node keeps its chain's ops (Node::fused_links), and a checked run
// forwards or refuses link by link, each op's operands in its own order, so
// every result carries the error eager execution gives it. A chain takes no
// new operand after a link whose result is written out: it then computes
// all its results or fails all of them.
#ifndef EAGERVM_GRAPH_FUSION_H_
#define EAGERVM_GRAPH_FUSION_H_

#include <memory>
#include <vector>

#include "eagervm/kernel.h"
#include "graph/program.h"

namespace eagervm::graph {

struct FusionStats {
  int fused_nodes = 0;  // nodes that replaced a chain
  int fused_ops = 0;    // ops those chains held
};

// Rewrites `p` in place. The fused nodes' kernels are appended to `kernels`,
// which must outlive every use of `p`'s nodes. Called on the capturing
// thread.
FusionStats FuseElementwiseChains(Program* p, std::vector<std::unique_ptr<KernelFn>>* kernels);

}  // namespace eagervm::graph

#endif  // EAGERVM_GRAPH_FUSION_H_
