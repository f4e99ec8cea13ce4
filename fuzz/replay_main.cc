// A deterministic driver for the fuzz targets: the same tree always gives the
// same verdict. It links a target's LLVMFuzzerTestOneInput without libFuzzer
// and runs
//   1. every file named (a directory: its files, in name order), once each;
//   2. --generate=N inputs drawn from --seed=S (std::mt19937_64, lengths
//      uniform in [1, --max_len]), once each.
// No coverage feedback picks the inputs, so which inputs run depends only on
// the arguments. CI's fuzz stage (scripts/test.sh fuzz) runs this; the
// open-ended, coverage-guided exploration is the libFuzzer binary of the same
// target (scripts/fuzz.sh, docs/fuzzing.md).
//
// A failing input aborts the process (the targets abort on a mismatch, the
// sanitizers on a report). Before it runs, each input is written to
// --artifact=FILE (if given), and a SIGABRT handler prints its name, so the
// input that failed is on disk and in the log.
//
//   usage: <target>_replay [--seed=S] [--generate=N] [--max_len=L]
//                          [--artifact=FILE] [path...]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

char g_current[512] = "(none)";  // the running input's name, for the handler

void OnAbort(int sig) {
  const char prefix[] = "\nreplay: the failing input is ";
  (void)!write(2, prefix, sizeof(prefix) - 1);
  (void)!write(2, g_current, strlen(g_current));
  (void)!write(2, "\n", 1);
  signal(sig, SIG_DFL);
  raise(sig);
}

void SetCurrent(const std::string& name) {
  std::snprintf(g_current, sizeof(g_current), "%s", name.c_str());
}

void WriteArtifact(const std::string& path, const std::vector<uint8_t>& bytes) {
  if (path.empty()) return;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

bool Flag(const char* arg, const char* name, std::string* value) {
  const size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1;
  uint64_t generate = 0;
  uint64_t max_len = 2048;
  std::string artifact;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (Flag(argv[i], "--seed", &v)) {
      seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (Flag(argv[i], "--generate", &v)) {
      generate = std::strtoull(v.c_str(), nullptr, 10);
    } else if (Flag(argv[i], "--max_len", &v)) {
      max_len = std::max<uint64_t>(1, std::strtoull(v.c_str(), nullptr, 10));
    } else if (Flag(argv[i], "--artifact", &v)) {
      artifact = v;
    } else if (std::filesystem::is_directory(argv[i])) {
      std::vector<std::filesystem::path> dir;
      for (const auto& e : std::filesystem::directory_iterator(argv[i])) {
        if (e.is_regular_file()) dir.push_back(e.path());
      }
      std::sort(dir.begin(), dir.end());
      files.insert(files.end(), dir.begin(), dir.end());
    } else if (std::filesystem::is_regular_file(argv[i])) {
      files.emplace_back(argv[i]);
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      return 2;
    }
  }
  signal(SIGABRT, OnAbort);
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);

  for (const std::filesystem::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    SetCurrent(f.string());
    WriteArtifact(artifact, bytes);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> bytes;
  for (uint64_t k = 0; k < generate; ++k) {
    bytes.resize(1 + rng() % max_len);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    SetCurrent("generated input " + std::to_string(k) + " (--seed=" + std::to_string(seed) +
               ", --max_len=" + std::to_string(max_len) + ")");
    WriteArtifact(artifact, bytes);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("replay: %zu files and %llu generated inputs (seed %llu), no failure\n", files.size(),
              static_cast<unsigned long long>(generate), static_cast<unsigned long long>(seed));
  return 0;
}
