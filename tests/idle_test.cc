// An embedded runtime idles at 0% CPU (DESIGN §4): after work and Sync(), once
// the bounded spin windows have expired, the VM's threads are parked.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Busy work on both streams, ending in Sync; leaves tensors alive.
std::vector<Tensor> Work() {
  std::vector<Tensor> kept;
  for (int s = 0; s < 2; ++s) {
    StreamScope scope(Stream(Device::Cpu(), s));
    Tensor acc = Full({64}, 0.0f, DType::kFloat32);
    Tensor one = Full({64}, 1.0f, DType::kFloat32);
    for (int i = 0; i < 2000; ++i) EXPECT_TRUE(ops::AddInplace(acc, one).ok());
    kept.push_back(acc);
  }
  EXPECT_TRUE(Sync().ok());
  return kept;
}

double CpuFractionOverOneSecond() {
  const double cpu0 = ProcessCpuSeconds();
  const auto wall0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return (ProcessCpuSeconds() - cpu0) / wall;
}

TEST(Idle, ParkedAfterSync) {
  std::vector<Tensor> kept = Work();
  EXPECT_EQ(kept[0].ToVector<float>().value()[0], 2000.0f);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // spin windows expire
  const double fraction = CpuFractionOverOneSecond();
  EXPECT_LT(fraction, 0.02) << "the process used " << 100 * fraction << "% of a core while idle; "
                            << VirtualMachine::Get().GetStats();
}

// Dropping the last handles queues releases; once those ran the VM parks again.
TEST(Idle, ParkedAfterReleases) {
  { std::vector<Tensor> kept = Work(); }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double fraction = CpuFractionOverOneSecond();
  EXPECT_LT(fraction, 0.02) << "the process used " << 100 * fraction << "% of a core while idle; "
                            << VirtualMachine::Get().GetStats();
  EXPECT_EQ(VirtualMachine::Get().GetStats().in_flight, 0);
}

}  // namespace
}  // namespace eagervm
