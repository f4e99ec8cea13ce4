// The EAGERVM_* registry: each variable parses, bad values and unknown names
// warn through the log sink, explicit options win, docs/env.md is in sync.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/env_registry.h"
#include "base/log.h"
#include "eagervm/eagervm.h"
#include "eagervm/log.h"
#include "vm/lifecycle/vm_options_env.h"

namespace eagervm {
namespace {

// The value of the variable `name` in `env`, or nullptr.
const base::EnvValue* ValueOf(const base::ParsedEnv& env, std::string_view name) {
  const base::EnvVar* var = base::FindEnvVar(name);
  return var == nullptr ? nullptr : env.Find(*var);
}

// How many of `env`'s values set a VmOptions field (the rest are process
// settings: the log level, the trace file).
size_t OptionsApplied(const base::ParsedEnv& env) {
  size_t n = 0;
  VmOptions o;
  for (const auto& [var, value] : env.values) n += vm::ApplyVmEnvVar(*var, value, &o);
  return n;
}

std::string Print(const VmOptions& o) {
  std::ostringstream s;
  s << o;
  return s.str();
}

struct CapturedLog {
  std::mutex mu;
  std::vector<std::pair<LogLevel, std::string>> lines;
  std::string All() {
    std::lock_guard<std::mutex> lock(mu);
    std::string s;
    for (auto& [level, line] : lines) s += std::string(ToString(level)) + ": " + line + "\n";
    return s;
  }
};

// Runs first (gtest keeps file order): the VM has not been created yet, and
// nothing has logged or asked for the log level.
TEST(Env, ReadOnceAtVmCreationWarnsAndExplicitOptionsWin) {
  auto log = std::make_shared<CapturedLog>();
  SetLogSink([log](LogLevel level, std::string_view msg) {
    std::lock_guard<std::mutex> lock(log->mu);
    log->lines.emplace_back(level, std::string(msg));
  });
  // The level comes from the registry too: no SetLogLevel() here, so the
  // info line below shows only if EAGERVM_LOG_LEVEL reached the logger.
  setenv("EAGERVM_LOG_LEVEL", "info", 1);
  setenv("EAGERVM_CPU_STREAMZ", "3", 1);       // misspelt
  setenv("EAGERVM_SPIN_US", "fast", 1);        // unparsable
  setenv("EAGERVM_MAX_IN_FLIGHT", "4096", 1);  // valid, but Configure() wins
  VmOptions explicit_options;
  // A negative device limit is an error, not "unlimited"; nothing changes.
  explicit_options.cuda_memory_limit = -1;
  absl::Status bad = VirtualMachine::Configure(explicit_options);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument) << bad;
  EXPECT_NE(bad.message().find("cuda_memory_limit"), absl::string_view::npos) << bad;
  explicit_options.cuda_memory_limit = 0;
  explicit_options.cpu_streams = 3;
  ASSERT_TRUE(VirtualMachine::Configure(explicit_options).ok());
  EXPECT_EQ(VirtualMachine::Get().options().cpu_streams, 3);
  EXPECT_EQ(VirtualMachine::Get().options().max_in_flight, VmOptions{}.max_in_flight);
  EXPECT_EQ(VirtualMachine::Get().options().spin_us, VmOptions{}.spin_us);

  const std::string all = log->All();
  EXPECT_NE(all.find("warning: unknown environment variable EAGERVM_CPU_STREAMZ ignored (did "
                     "you mean EAGERVM_CPU_STREAMS?)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("warning: EAGERVM_SPIN_US='fast' is not an integer"), std::string::npos)
      << all;
  EXPECT_NE(all.find("info: EAGERVM_MAX_IN_FLIGHT is overridden"), std::string::npos) << all;
  EXPECT_EQ(GetLogLevel(), LogLevel::kInfo);
  EXPECT_EQ(base::EnvLogLevel(), LogLevel::kInfo);
  // FromEnv() saw the valid variable, and reads the environment once only.
  EXPECT_EQ(VmOptions::FromEnv().max_in_flight, 4096);
  setenv("EAGERVM_MAX_IN_FLIGHT", "8192", 1);
  EXPECT_EQ(VmOptions::FromEnv().max_in_flight, 4096);
  SetLogSink(nullptr);
  SetLogLevel(LogLevel::kWarning);
}

TEST(Env, DefaultTextOfEveryVariableIsTheOptionsDefault) {
  for (const base::EnvVar* var : base::EnvVars()) {
    SCOPED_TRACE(var->name);
    absl::StatusOr<base::EnvValue> v = base::ParseEnvValue(*var, var->default_text);
    ASSERT_TRUE(v.ok()) << v.status();
    VmOptions o;
    if (!vm::ApplyVmEnvVar(*var, *v, &o)) continue;  // a process setting
    EXPECT_EQ(Print(o), Print(VmOptions{}));
  }
}

// One non-default value per variable.
const std::vector<std::string> kEveryVariable = {
    "EAGERVM_CPU_STREAMS=4",           "EAGERVM_COMPUTE_ON_SCHEDULER_THREAD=yes",
    "EAGERVM_INLINE_MAX_BYTES=4KiB",   "EAGERVM_SYNCHRONOUS=TRUE",
    "EAGERVM_MAX_IN_FLIGHT=1000",      "EAGERVM_SPIN_US=0",
    "EAGERVM_CPU_MEMORY_LIMIT=64MiB",  "EAGERVM_CUDA_MEMORY_LIMIT=1.5GiB",
    "EAGERVM_OOM_WAIT_MS=10",          "EAGERVM_HANG_TIMEOUT_MS=5000",
    "EAGERVM_COLLECTIVES_ON_CALLER=1", "EAGERVM_TRACE=/tmp/run.json",
    "EAGERVM_LOG_LEVEL=Debug",         "EAGERVM_DONATE_MAX_BYTES=2KiB",
    "EAGERVM_STRICT_DTYPES=on",        "EAGERVM_RUN_AHEAD_MAX_BYTES=64KiB",
    "EAGERVM_HANDOFF_MIN_GAP_US=500",
};

TEST(Env, EachVariableParses) {
  std::vector<std::string> entries = kEveryVariable;
  entries.push_back("PATH=/usr/bin");
  entries.push_back("NOT_EAGERVM_X=1");
  const base::ParsedEnv env = base::ParseEnv(entries);
  EXPECT_TRUE(env.warnings.empty()) << env.warnings[0];
  const VmOptions options = vm::VmOptionsFromEnv(env);
  EXPECT_EQ(options.cpu_streams, 4);
  EXPECT_TRUE(options.compute_on_scheduler_thread);
  EXPECT_EQ(options.inline_max_bytes, 4096);
  EXPECT_EQ(options.donate_max_bytes, 2048);
  EXPECT_EQ(options.run_ahead_max_bytes, 65536);
  EXPECT_EQ(options.handoff_min_gap_us, 500);
  EXPECT_TRUE(options.synchronous);
  EXPECT_EQ(options.max_in_flight, 1000);
  EXPECT_EQ(options.spin_us, 0);
  EXPECT_EQ(options.cpu_memory_limit, int64_t{64} << 20);
  EXPECT_EQ(options.cuda_memory_limit, int64_t{3} << 29);
  EXPECT_EQ(options.oom_wait_ms, 10);
  EXPECT_EQ(options.hang_timeout_ms, 5000);
  EXPECT_TRUE(options.collectives_on_caller);
  EXPECT_TRUE(options.strict_dtypes);
  ASSERT_NE(ValueOf(env, "EAGERVM_TRACE"), nullptr);
  EXPECT_EQ(std::get<std::string>(*ValueOf(env, "EAGERVM_TRACE")), "/tmp/run.json");
  ASSERT_NE(ValueOf(env, "EAGERVM_LOG_LEVEL"), nullptr);
  EXPECT_EQ(std::get<LogLevel>(*ValueOf(env, "EAGERVM_LOG_LEVEL")), LogLevel::kDebug);
  EXPECT_EQ(env.values.size(), 17u);
  EXPECT_EQ(OptionsApplied(env), 15u);
  // Every registered variable was covered above.
  EXPECT_EQ(base::EnvVars().size(), 17u) << "a new variable needs a case in this test";
}

// operator<<(VmOptions) prints every field the registry sets, so comparing
// printed options (the defaults check above, and ResolveVmOptions' override
// log) sees each of them.
TEST(Env, EveryOptionsVariableShowsInThePrintedOptions) {
  for (const std::string& entry : kEveryVariable) {
    SCOPED_TRACE(entry);
    const base::ParsedEnv env = base::ParseEnv({entry});
    ASSERT_TRUE(env.warnings.empty()) << env.warnings[0];
    if (OptionsApplied(env) == 0) continue;  // a process setting, not a VmOptions field
    EXPECT_NE(Print(vm::VmOptionsFromEnv(env)), Print(VmOptions{}));
  }
}

TEST(Env, BadValuesWarnAndKeepTheDefault) {
  const base::ParsedEnv env = base::ParseEnv({
      "EAGERVM_CPU_STREAMS=0",   // out of range
      "EAGERVM_CPU_STREAMS=2x",  // trailing junk
      "EAGERVM_SYNCHRONOUS=maybe",
      "EAGERVM_CPU_MEMORY_LIMIT=64 parsecs",
      "EAGERVM_LOG_LEVEL=loud",
      "EAGERVM_MAX_IN_FLIGHT=99999999999999999999",  // overflows int64
      "EAGERVM_TOTALLY_UNKNOWN=1",
  });
  ASSERT_EQ(env.warnings.size(), 7u);
  EXPECT_EQ(env.warnings[0],
            "EAGERVM_CPU_STREAMS='0' is not an integer in [1, 64]; using the default (2)");
  EXPECT_NE(env.warnings[1].find("EAGERVM_CPU_STREAMS='2x' is not an integer"), std::string::npos);
  EXPECT_NE(env.warnings[2].find("EAGERVM_SYNCHRONOUS='maybe' is not a boolean"),
            std::string::npos);
  EXPECT_NE(env.warnings[3].find("EAGERVM_CPU_MEMORY_LIMIT='64 parsecs' is not a byte size"),
            std::string::npos);
  EXPECT_NE(env.warnings[4].find("EAGERVM_LOG_LEVEL='loud' is not a log level"), std::string::npos);
  EXPECT_NE(env.warnings[5].find("EAGERVM_MAX_IN_FLIGHT"), std::string::npos);
  EXPECT_NE(env.warnings[6].find("unknown environment variable EAGERVM_TOTALLY_UNKNOWN"),
            std::string::npos);
  EXPECT_EQ(Print(vm::VmOptionsFromEnv(env)), Print(VmOptions{}));
  EXPECT_EQ(ValueOf(env, "EAGERVM_LOG_LEVEL"), nullptr);
  EXPECT_TRUE(env.values.empty());
}

TEST(Env, DocsTableMatchesTheRegistry) {
  std::string src = __FILE__;  // <source>/tests/env_test.cc
  src = src.substr(0, src.rfind('/'));
  src = src.substr(0, src.rfind('/'));
  std::ifstream in(src + "/docs/env.md");
  ASSERT_TRUE(in.good()) << "cannot read " << src << "/docs/env.md";
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string table = base::EnvDocTable();
  EXPECT_NE(doc.str().find(table), std::string::npos)
      << "docs/env.md is out of date; replace its table with:\n"
      << table;
  for (const base::EnvVar* var : base::EnvVars()) {
    EXPECT_NE(doc.str().find(var->name), std::string::npos) << var->name;
  }
}

TEST(Log, LevelsAndSink) {
  std::vector<std::string> got;
  std::mutex mu;
  SetLogSink([&](LogLevel level, std::string_view msg) {
    std::lock_guard<std::mutex> lock(mu);
    got.push_back(std::string(ToString(level)) + " " + std::string(msg));
  });
  SetLogLevel(LogLevel::kWarning);
  EXPECT_EQ(GetLogLevel(), LogLevel::kWarning);
  EAGERVM_LOG(kInfo, "hidden ", 1);
  EAGERVM_LOG(kWarning, "shown ", 2);
  EAGERVM_LOG(kError, "shown ", 3.5);
  SetLogLevel(LogLevel::kOff);
  EAGERVM_LOG(kError, "hidden too");
  SetLogLevel(LogLevel::kDebug);
  EAGERVM_LOG(kDebug, "debug ", "on");
  SetLogSink([](LogLevel, std::string_view) { throw 42; });  // swallowed
  EAGERVM_LOG(kError, "to a throwing sink");
  SetLogSink(nullptr);  // default (stderr) again
  SetLogLevel(LogLevel::kWarning);
  EXPECT_EQ(got,
            (std::vector<std::string>{"warning shown 2", "error shown 3.5", "debug debug on"}));
  EXPECT_EQ(base::ParseLogLevel("WARN"), LogLevel::kWarning);
  EXPECT_EQ(base::ParseLogLevel("off"), LogLevel::kOff);
  EXPECT_FALSE(base::ParseLogLevel("verbose").has_value());
}

}  // namespace
}  // namespace eagervm
