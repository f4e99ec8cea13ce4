// The instruction state machine (src/vm/instruction_state.h): exactly the
// documented transitions are legal.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "vm/instruction_state.h"

namespace eagervm::vm {
namespace {

using S = InstrState;
constexpr S kAll[] = {S::kFree,  S::kBuilding, S::kPending, S::kWaiting,
                      S::kReady, S::kRunning,  S::kBarrier};

// The table from the header comment, written out independently.
const std::set<std::pair<S, S>>& Legal() {
  static const std::set<std::pair<S, S>> legal = {
      {S::kFree, S::kBuilding},   {S::kBuilding, S::kFree},  {S::kBuilding, S::kPending},
      {S::kPending, S::kWaiting}, {S::kPending, S::kReady},  {S::kPending, S::kBarrier},
      {S::kWaiting, S::kReady},   {S::kReady, S::kRunning},  {S::kRunning, S::kFree},
      {S::kBarrier, S::kFree},
  };
  return legal;
}

TEST(InstructionState, ExactlyTheDocumentedTransitionsAreLegal) {
  for (S from : kAll) {
    for (S to : kAll) {
      EXPECT_EQ(IsLegalTransition(from, to), Legal().count({from, to}) == 1)
          << ToString(from) << " -> " << ToString(to);
    }
  }
}

TEST(InstructionState, NoSelfLoopsAndNoSkippingTheEngine) {
  for (S s : kAll) EXPECT_FALSE(IsLegalTransition(s, s)) << ToString(s);
  // Work must pass through pending -> linked -> dispatched; nothing jumps ahead.
  EXPECT_FALSE(IsLegalTransition(S::kBuilding, S::kRunning));
  EXPECT_FALSE(IsLegalTransition(S::kPending, S::kRunning));
  EXPECT_FALSE(IsLegalTransition(S::kWaiting, S::kRunning));
  EXPECT_FALSE(IsLegalTransition(S::kReady, S::kFree));
  EXPECT_FALSE(IsLegalTransition(S::kWaiting, S::kFree));
}

TEST(InstructionState, EveryStateIsReachableFromFreeAndReturnsToFree) {
  // Breadth-first over the legal transitions.
  auto reachable_from = [](S start) {
    std::set<S> seen = {start};
    bool grew = true;
    while (grew) {
      grew = false;
      for (S from : std::set<S>(seen)) {
        for (S to : kAll) {
          if (IsLegalTransition(from, to) && seen.insert(to).second) grew = true;
        }
      }
    }
    return seen;
  };
  EXPECT_EQ(reachable_from(S::kFree).size(), std::size(kAll));
  for (S s : kAll) EXPECT_EQ(reachable_from(s).count(S::kFree), 1u) << ToString(s);
}

TEST(InstructionState, NamesAreDistinct) {
  std::set<std::string> names;
  for (S s : kAll) names.insert(ToString(s));
  EXPECT_EQ(names.size(), std::size(kAll));
}

}  // namespace
}  // namespace eagervm::vm
