// eagervm: an embeddable eager-execution runtime. The one header users include.
#ifndef EAGERVM_EAGERVM_H_
#define EAGERVM_EAGERVM_H_

#include "eagervm/custom_op.h"
#include "eagervm/device.h"
#include "eagervm/distributed.h"
#include "eagervm/dtype.h"
#include "eagervm/graph.h"
#include "eagervm/instructions_builder.h"
#include "eagervm/log.h"
#include "eagervm/memory_stats.h"
#include "eagervm/ops.h"
#include "eagervm/scalar.h"
#include "eagervm/shape.h"
#include "eagervm/status_macros.h"
#include "eagervm/stream.h"
#include "eagervm/tensor.h"
#include "eagervm/trace.h"
#include "eagervm/version.h"
#include "eagervm/virtual_machine.h"

#endif  // EAGERVM_EAGERVM_H_
