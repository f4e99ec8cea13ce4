// mlp_bench's child process (the eager sync and queued modes: the VM's mode
// is per process) and the parent's side of it. The protocol, on the child's
// stdout: "losses <%a floats>\nms <ms per step of each timed block>\n", or
// "unimplemented <status>" and exit 3.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "eagervm/eagervm.h"
#include "models/mlp_bench.h"

namespace eagervm::models {

double MsPerStep(MlpTrainer& t, int steps, absl::Status* status) {
  if (absl::Status s = t.Steps(10, nullptr); !s.ok()) *status = s;  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  if (absl::Status s = t.Steps(steps, nullptr); !s.ok()) *status = s;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
         steps;
}

int MlpChild(const MlpBenchFlags& f, const Digits& d) {
  MlpConfig c;
  c.hidden = f.hidden;
  c.batch = f.batch;
  c.device = f.device;
  auto fail = [](const absl::Status& s) {
    if (absl::IsUnimplemented(s)) {
      std::printf("unimplemented %s\n", std::string(s.message()).c_str());
      return 3;
    }
    std::fprintf(stderr, "mlp_bench child: %s\n", s.ToString().c_str());
    return 2;
  };
  absl::StatusOr<std::unique_ptr<MlpTrainer>> t = MakeEagervmTrainer(c, d, /*graph=*/false);
  if (!t.ok()) return fail(t.status());
  std::vector<float> losses;
  if (absl::Status s = (*t)->Steps(f.check_steps, &losses); !s.ok()) return fail(s);
  std::printf("losses");
  for (float l : losses) std::printf(" %a", l);
  std::printf("\nms");
  for (int r = 0; r < f.reps; ++r) {
    absl::Status s;
    const double ms = MsPerStep(**t, f.steps, &s);
    if (!s.ok()) return fail(s);
    std::printf(" %.6f", ms);
  }
  std::printf("\n");
  if (std::getenv("MLP_STATS") != nullptr)
    std::fprintf(stderr, "%s\n", VirtualMachine::Get().GetStats().ToString().c_str());
  return 0;
}

ChildResult RunMlpChild(const char* env, const MlpConfig& c, const MlpBenchFlags& f, int steps,
                        int reps) {
  const std::string cmd = std::string(env) + " /proc/" + std::to_string(getpid()) +
                          "/exe --child --hidden=" + std::to_string(c.hidden) +
                          " --batch=" + std::to_string(c.batch) +
                          " --steps=" + std::to_string(steps) + " --reps=" + std::to_string(reps) +
                          " --check-steps=" + std::to_string(f.check_steps) +
                          " --device=" + c.device.ToString() + " --digits='" + f.digits + "'";
  ChildResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
  const int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
  if (r.rc == 3 && out.rfind("unimplemented ", 0) == 0) {
    r.unimplemented = out.substr(
        14, out.find('\n') == std::string::npos ? std::string::npos : out.find('\n') - 14);
    return r;
  }
  if (r.rc != 0) return r;
  std::istringstream in(out);
  std::string word;
  bool timings = false;
  while (in >> word) {
    if (word == "losses") continue;
    if (word == "ms") {
      timings = true;
      continue;
    }
    if (timings)
      r.ms.push_back(std::strtod(word.c_str(), nullptr));
    else
      r.losses.push_back(std::strtof(word.c_str(), nullptr));
  }
  if (static_cast<int>(r.ms.size()) != reps) r.rc = 2;
  return r;
}

}  // namespace eagervm::models
