// A gtest environment that configures the process-wide VM before any test of
// the binary runs: for test binaries that exercise one VmOptions setting.
//
//   const auto* const env = ::testing::AddGlobalTestEnvironment(
//       new eagervm::testing::ConfiguredVm([](VmOptions& o) { o.synchronous = true; }));
#ifndef EAGERVM_TESTS_CONFIGURED_VM_H_
#define EAGERVM_TESTS_CONFIGURED_VM_H_

#include <gtest/gtest.h>

#include <functional>
#include <utility>

#include "eagervm/eagervm.h"

namespace eagervm::testing {

class ConfiguredVm : public ::testing::Environment {
 public:
  explicit ConfiguredVm(std::function<void(VmOptions&)> edit) : edit_(std::move(edit)) {}
  void SetUp() override {
    VmOptions opts;
    edit_(opts);
    ASSERT_TRUE(VirtualMachine::Configure(opts).ok());
  }

 private:
  std::function<void(VmOptions&)> edit_;
};

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_CONFIGURED_VM_H_
