// The engine hook the CUDA backend relies on (StreamPolicy::OrdersOnDevice),
// tested without a GPU: a fake device whose streams order themselves. An edge
// between two such streams must be satisfied at the source's *dispatch*, with
// the source handed to the destination's Run() in device_waits; an edge to a
// stream that cannot order itself must wait for the source to be done.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "base/thread_role.h"
#include "vm/diagnostics/vm_counters.h"
#include "vm/engine/engine.h"
#include "vm/engine/instruction_pool.h"
#include "vm/streams/stream_policy.h"
#include "vm/streams/vm_stream.h"

namespace eagervm::vm {
namespace {

struct Log {
  std::vector<int> runs;                // tags, in Run order
  std::vector<std::vector<int>> waits;  // per Run: tags of alive device_waits
  std::vector<bool> done;               // by tag: "the device finished it"
};

class TaggedPolicy final : public InstructionPolicy {
 public:
  TaggedPolicy(int tag, BlobObject* blob, bool write) : tag_(tag), blob_(blob), write_(write) {}
  const char* name() const override { return "Tagged"; }
  void GetAccesses(AccessList* out) const override { out->push_back({blob_, write_}); }
  void Compute(VmStream*) override {}
  int tag() const { return tag_; }

 private:
  int tag_;
  BlobObject* blob_;
  bool write_;
};

// Runs inline; done only when the test says the "device" finished.
class FakeDevicePolicy final : public StreamPolicy {
 public:
  FakeDevicePolicy(Log* log, bool orders_on_device) : log_(log), orders_(orders_on_device) {}
  Device device() const override { return Device::Cuda(0); }
  memory::Allocator* allocator() override { return nullptr; }
  bool OnSchedulerThread() const override { return true; }
  bool OrdersOnDevice(const Instruction& src, const Instruction&) const override {
    return orders_ && src.stream()->policy()->device().type() == DeviceType::kCUDA;
  }
  void Run(VmStream*, Instruction* instr) override {
    const int tag = static_cast<TaggedPolicy*>(instr->policy())->tag();
    instr->policy_word = static_cast<uint64_t>(tag);
    log_->runs.push_back(tag);
    std::vector<int> w;
    for (const InstrRef& r : instr->device_waits) {
      if (r.instr->IsAlive(r)) w.push_back(static_cast<int>(r.instr->policy_word));
    }
    log_->waits.push_back(w);
    instr->device_waits.clear();
  }
  bool QueryDone(const Instruction* instr) const override {
    return log_->done[static_cast<size_t>(instr->policy_word)];
  }

 private:
  Log* log_;
  bool orders_;
};

class EngineHookTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    log_.done.assign(8, false);
    for (int i = 0; i < 2; ++i) {
      streams_.push_back(
          std::make_unique<VmStream>(Stream(Device::Cuda(0), i),
                                     std::make_unique<FakeDevicePolicy>(&log_, GetParam()), nullptr,
                                     /*context=*/nullptr));
    }
  }
  Instruction* Make(int tag, int stream, bool write) {
    Instruction* i = InstructionPool::Acquire();
    i->Emplace<TaggedPolicy>(tag, &blob_, write);
    i->set_stream(streams_[stream].get());
    i->PrepareForScheduler();  // what VmImpl::Receive does
    i->set_state(InstrState::kPending);
    return i;
  }
  void Drain() {
    InstructionList none;
    for (int i = 0; i < 16 && engine_.Schedule(&none); ++i) {
    }
  }

  base::ScopedThreadRole role_{base::ThreadRole::kScheduler};  // this thread drives the engine
  Log log_;
  VmCounters counters_;
  Engine engine_{&counters_, /*inline_max_bytes=*/0};
  BlobObject blob_{16, Device::Cuda(0)};
  std::vector<std::unique_ptr<VmStream>> streams_;
};

TEST_P(EngineHookTest, CrossStreamEdgeIsSatisfiedAtDispatchOnlyWhenTheDeviceOrdersIt) {
  const bool on_device = GetParam();
  InstructionList list;
  list.PushBack(Make(1, 0, /*write=*/true));   // producer on stream 0
  list.PushBack(Make(2, 1, /*write=*/false));  // consumer on stream 1
  engine_.Schedule(&list);
  Drain();
  if (on_device) {
    // Both launched at once; the consumer carries the producer as a device wait.
    ASSERT_EQ(log_.runs, (std::vector<int>{1, 2}));
    EXPECT_TRUE(log_.waits[0].empty());
    EXPECT_EQ(log_.waits[1], (std::vector<int>{1}));
  } else {
    ASSERT_EQ(log_.runs, (std::vector<int>{1}));  // waits for the producer to be done
  }
  log_.done[1] = true;
  Drain();
  ASSERT_EQ(log_.runs, (std::vector<int>{1, 2}));
  if (!on_device) EXPECT_TRUE(log_.waits[1].empty());  // a released source needs no device wait
  log_.done[2] = true;
  Drain();
  EXPECT_TRUE(engine_.Empty());
}

TEST_P(EngineHookTest, WriteAfterReadAcrossStreamsAlsoWaitsOnTheDevice) {
  const bool on_device = GetParam();
  log_.done[1] = true;  // the first write is long finished
  InstructionList list;
  list.PushBack(Make(1, 0, true));
  list.PushBack(Make(2, 1, false));  // read on stream 1
  list.PushBack(Make(3, 0, true));   // write on stream 0 after that read (WAR)
  engine_.Schedule(&list);
  Drain();
  if (on_device) {
    ASSERT_EQ(log_.runs, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(log_.waits[2],
              (std::vector<int>{2}));  // the writer waits for the reader on the device
  } else {
    ASSERT_EQ(log_.runs, (std::vector<int>{1, 2}));
    log_.done[2] = true;
    Drain();
    ASSERT_EQ(log_.runs, (std::vector<int>{1, 2, 3}));
  }
  log_.done[2] = log_.done[3] = true;
  Drain();
  EXPECT_TRUE(engine_.Empty());
}

INSTANTIATE_TEST_SUITE_P(OrdersOnDevice, EngineHookTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "OnDevice" : "OnHost"; });

}  // namespace
}  // namespace eagervm::vm
