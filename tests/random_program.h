// Random programs for differential tests: each op is applied both to eagervm
// (asynchronously, on a random stream) and to a plain sequential host
// reference (std::vector storages), and the two are compared bitwise.
//
// Values stay exact: small integers in float32 or int64, magnitudes bounded
// (an op whose result would leave the bound becomes a FillInplace instead).
// Views (Reshape, Slice) share the reference storage of their base, so a write
// through a view must show up in every other view of the same storage.
//
// Optionally (the fuzzer, fuzz/program_fuzzer.cc) programs also call a custom
// op that may fail, and Sync() mid-program; the reference then models errors
// as data: a storage poisoned by failure #k stays poisoned, every read of it
// must return failure #k, and Sync() must return the failures no read has
// reported. Choices come from a ChoiceSource: a seeded RNG, or fuzzer bytes.
//
// Header-only so every test binary (differential, synchronous, compute on the
// scheduler thread) builds its own copy without a test library.
#ifndef EAGERVM_TESTS_RANDOM_PROGRAM_H_
#define EAGERVM_TESTS_RANDOM_PROGRAM_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"
#include "random_program_ops.h"

namespace eagervm::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

struct ProgramOptions {
  int num_ops = 100;
  int num_streams = 2;      // ops pick Stream(cpu, i) with i < num_streams
  int read_per_mille = 20;  // chance (per 1000 ops) of a blocking Item/ToVector mid-program
  // Chance of a call of the custom AddOne ops (in place or not; half of them
  // fail, random_program_ops.h), and of a Sync() mid-program.
  int custom_per_mille = 0;
  int sync_per_mille = 0;
  // At the end, drop every handle and Sync(): it must report exactly the
  // failures no read has, and every byte must be back (bytes_in_use 0).
  bool final_sync = false;
};

// Where a program's choices come from.
class ChoiceSource {
 public:
  virtual ~ChoiceSource() = default;
  virtual uint64_t Below(uint64_t n) = 0;  // in [0, n); n > 0
  virtual bool exhausted() const { return false; }
};

class RngChoices final : public ChoiceSource {
 public:
  explicit RngChoices(uint64_t seed) : rng_(seed) {}
  uint64_t Below(uint64_t n) override { return rng_() % n; }

 private:
  std::mt19937_64 rng_;
};

namespace detail {

// The reference of one storage: its values, and the failure that poisoned it.
template <typename T>
struct RefStorage {
  std::vector<T> values;
  int64_t error = 0;  // 0: none; else the id of the failing AddOne call
};

// One slot of the program: a tensor handle (maybe a view) and its reference.
template <typename T>
struct Slot {
  Tensor t;                                // !defined() when the slot is empty
  std::shared_ptr<RefStorage<T>> storage;  // shared by views of one base
  int64_t offset = 0;                      // in elements
  Shape shape;
  int64_t numel() const { return shape.numel(); }
  bool live() const { return t.defined(); }
};

template <typename T>
class Program {
 public:
  static constexpr int64_t kBound = int64_t{1} << 20;  // |value| stays below: exact in float32

  Program(ChoiceSource* choices, const ProgramOptions& opts) : choices_(choices), opts_(opts) {
    slots_.resize(6 + Rand(5));  // 6..10 tensors
  }

  // "" on success, else a description of the first mismatch or failure.
  std::string Run() {
    for (int op = 0; op < opts_.num_ops && failure_.empty() && !choices_->exhausted(); ++op) {
      Step();
    }
    for (size_t k = 0; k < slots_.size() && failure_.empty(); ++k) {
      if (slots_[k].live()) Compare(k, "final");
    }
    if (opts_.final_sync && failure_.empty()) {
      for (Slot<T>& s : slots_) s = Slot<T>();
      Log("drop everything");
      CheckSync("final Sync");
      const VmStats stats = VirtualMachine::Get().GetStats();
      for (const MemoryStats& m : stats.memory) {
        if (m.bytes_in_use != 0) Fail("bytes in use after the final Sync: " + stats.ToString());
      }
    }
    return failure_;
  }

 private:
  uint64_t Rand(uint64_t n) { return choices_->Below(n); }
  T SmallValue(int range) {
    return static_cast<T>(static_cast<int64_t>(Rand(2 * range + 1)) - range);
  }
  static DType dtype() { return DTypeOf<T>(); }

  static const std::vector<Shape>& BaseShapes() {
    static const std::vector<Shape> shapes = {{12}, {4, 3}, {3, 4}, {2, 6}, {6, 2}, {2, 2, 3}};
    return shapes;
  }
  // A random shape with `n` elements (n > 0).
  Shape ShapeWithNumel(int64_t n) {
    std::vector<Shape> options = {Shape{n}};
    for (int64_t a = 1; a <= n; ++a) {
      if (n % a == 0) options.push_back(Shape{a, n / a});
    }
    if (n % 2 == 0) options.push_back(Shape{2, 1, n / 2});
    if (n == 1) options.push_back(Shape{});
    return options[Rand(options.size())];
  }

  std::vector<T> Ref(const Slot<T>& s) const {
    const std::vector<T>& v = s.storage->values;
    return std::vector<T>(v.begin() + s.offset, v.begin() + s.offset + s.numel());
  }
  // Writes through slot s: values, or the error of the inputs (self first).
  void SetRef(Slot<T>& s, const std::vector<T>& v, int64_t error = 0) {
    if (error == 0) error = s.storage->error;
    if (error != 0) {
      s.storage->error = error;
      return;
    }
    std::copy(v.begin(), v.end(), s.storage->values.begin() + s.offset);
  }
  // FillInplace and CopyInto overwrite their target without reading it: a
  // write of the whole storage heals its error; of part of it (a view) keeps
  // it. A failed source is forwarded instead (`src_error`).
  void SetOverwritten(Slot<T>& s, const std::vector<T>& v, int64_t src_error) {
    if (src_error != 0) {
      s.storage->error = src_error;
      return;
    }
    if (s.offset == 0 && s.numel() == static_cast<int64_t>(s.storage->values.size())) {
      s.storage->error = 0;
    }
    SetRef(s, v);
  }
  static bool InBound(const std::vector<T>& v) {
    for (T x : v) {
      if (x > static_cast<T>(kBound) || x < -static_cast<T>(kBound)) return false;
    }
    return true;
  }
  // Distinct ranges of one storage that overlap: elementwise in-place kernels
  // give loop-order-dependent results there, so programs avoid it.
  static bool PartialOverlap(const Slot<T>& a, const Slot<T>& b) {
    if (a.storage != b.storage) return false;
    if (a.offset == b.offset && a.numel() == b.numel()) return false;
    return a.offset < b.offset + b.numel() && b.offset < a.offset + a.numel();
  }

  int RandomLive() {
    std::vector<int> live;
    for (size_t k = 0; k < slots_.size(); ++k) {
      if (slots_[k].live()) live.push_back(static_cast<int>(k));
    }
    return live.empty() ? -1 : live[Rand(live.size())];
  }
  // A live slot with the same numel as `i` and no partial overlap (maybe i).
  int Partner(int i) {
    std::vector<int> c;
    for (size_t k = 0; k < slots_.size(); ++k) {
      const Slot<T>& s = slots_[k];
      if (s.live() && s.numel() == slots_[i].numel() && !PartialOverlap(s, slots_[i])) {
        c.push_back(static_cast<int>(k));
      }
    }
    return c.empty() ? -1 : c[Rand(c.size())];
  }

  void Log(std::string line) { log_.push_back(std::move(line)); }
  std::string Name(int k) const { return "t" + std::to_string(k) + slots_[k].shape.ToString(); }

  void Fail(const std::string& what) {
    if (!failure_.empty()) return;
    std::ostringstream os;
    os << what << "\n  program (" << ToString(dtype()) << ", " << slots_.size()
       << " slots), last ops:\n";
    const size_t from = log_.size() > 25 ? log_.size() - 25 : 0;
    for (size_t i = from; i < log_.size(); ++i) os << "    " << i << ": " << log_[i] << "\n";
    failure_ = os.str();
  }
  void Check(const absl::Status& s, const char* op) {
    if (!s.ok()) Fail(std::string(op) + " failed: " + s.ToString());
  }

  // A read of a poisoned storage must return its failure (now reported).
  bool ExpectFailure(const Slot<T>& s, const absl::Status& got, const char* what) {
    const int64_t id = s.storage->error;
    if (id == 0) return false;
    unreported_.erase(id);
    if (got.code() != absl::StatusCode::kDataLoss ||
        std::string(got.message()).find(FailureTag(id)) == std::string::npos) {
      Fail(std::string(what) + " should fail with " + FailureTag(id) + ", got " + got.ToString());
    }
    return true;
  }
  // Sync() returns one of the failures no read has reported, counting the others.
  void CheckSync(const char* what) {
    const absl::Status s = Sync();
    const std::string msg(s.message());
    if (unreported_.empty()) {
      if (!s.ok()) Fail(std::string(what) + " should be OK, got " + s.ToString());
      return;
    }
    bool named = false;
    for (int64_t id : unreported_) named |= msg.find(FailureTag(id)) != std::string::npos;
    const std::string more =
        unreported_.size() == 1 ? "" : "(and " + std::to_string(unreported_.size() - 1) + " more";
    if (s.code() != absl::StatusCode::kDataLoss || !named || msg.find(more) == std::string::npos) {
      Fail(std::string(what) + " should return one of " + std::to_string(unreported_.size()) +
           " unreported failures, got " + s.ToString());
    }
    unreported_.clear();
  }

  void Compare(size_t k, const char* when) {
    const Slot<T>& s = slots_[k];
    absl::StatusOr<std::vector<T>> got = s.t.template ToVector<T>();
    if (s.storage->error != 0) {
      if (got.ok()) return Fail(std::string(when) + " read of " + Name(k) + " should fail");
      ExpectFailure(s, got.status(), "ToVector");
      return;
    }
    if (!got.ok()) return Fail(std::string("ToVector failed: ") + got.status().ToString());
    const std::vector<T> want = Ref(s);
    if (got->size() != want.size() ||
        (!want.empty() && std::memcmp(got->data(), want.data(), want.size() * sizeof(T)) != 0)) {
      std::ostringstream os;
      os << when << " mismatch in " << Name(static_cast<int>(k)) << ": got [";
      for (T x : *got) os << x << " ";
      os << "] want [";
      for (T x : want) os << x << " ";
      os << "]";
      Fail(os.str());
    }
  }

  // Stores a fresh (non-view) tensor and its reference in slot k.
  void Put(int k, Tensor t, std::vector<T> ref, int64_t error = 0) {
    Slot<T>& s = slots_[k];
    s.shape = t.shape();
    s.t = std::move(t);  // drops the old handle: maybe a ReleaseTensor
    s.storage = std::make_shared<RefStorage<T>>(RefStorage<T>{std::move(ref), error});
    s.offset = 0;
  }
  void PutView(int k, Tensor view, const Slot<T>& base, int64_t offset) {
    Slot<T> s;
    s.shape = view.shape();
    s.t = std::move(view);
    s.storage = base.storage;
    s.offset = offset;
    slots_[k] = std::move(s);
  }
  bool CheckTensor(const Tensor& t, const char* op) {
    if (!t.ok()) Fail(std::string(op) + " returned an error tensor: " + t.status().ToString());
    return t.ok();
  }

  // The error an op reading slots i then j gets: the first poisoned input's.
  int64_t ErrorOf(int i, int j) const {
    return slots_[i].storage->error != 0 ? slots_[i].storage->error : slots_[j].storage->error;
  }

  // The custom AddOne ops (random_program_ops.h), failing or not.
  void CustomStep(int k, int i) {
    const bool inplace = Rand(2) == 1;
    const bool fail = Rand(2) == 1;
    const int64_t id = fail ? next_failure_++ : 0;
    std::vector<T> r = Ref(slots_[i]);
    for (T& x : r) x = PlusOne(x);
    if (!InBound(r)) return Fill(i);
    // A poisoned input is forwarded: the kernel does not run, nothing new fails.
    const int64_t error = slots_[i].storage->error != 0 ? slots_[i].storage->error : id;
    if (error == id && id != 0) unreported_.insert(id);
    Log(std::string(inplace ? "AddOneInplace(" : "t" + std::to_string(k) + " = AddOne(") + Name(i) +
        (fail ? ", " + FailureTag(id) : std::string()) + ")");
    absl::StatusOr<std::vector<Tensor>> out = CallAddOne(slots_[i].t, inplace, id);
    if (!out.ok()) return Fail("AddOne rejected: " + out.status().ToString());
    if (inplace) return SetRef(slots_[i], r, error);
    Put(k, std::move((*out)[0]), std::move(r), error);
  }

  void Step() {
    StreamScope scope(Stream(Device::Cpu(), static_cast<int>(Rand(opts_.num_streams))));
    const int k = static_cast<int>(Rand(slots_.size()));  // target slot for new tensors
    const int i = RandomLive();
    if (opts_.sync_per_mille > 0 && Rand(1000) < static_cast<uint64_t>(opts_.sync_per_mille)) {
      Log("Sync");
      return CheckSync("mid-program Sync");
    }
    if (i >= 0 && opts_.custom_per_mille > 0 &&
        Rand(1000) < static_cast<uint64_t>(opts_.custom_per_mille)) {
      return CustomStep(k, i);
    }
    const uint64_t kind = (i < 0)                                                    ? Rand(2)
                          : Rand(1000) < static_cast<uint64_t>(opts_.read_per_mille) ? 99
                                                                                     : Rand(12);
    switch (kind) {
      case 0: {  // Full
        const Shape shape = BaseShapes()[Rand(BaseShapes().size())];
        const T v = SmallValue(3);
        Log("t" + std::to_string(k) + " = Full(" + shape.ToString() + ", " + std::to_string(v) +
            ")");
        Tensor t = Full(shape, static_cast<double>(v), dtype());
        if (CheckTensor(t, "Full")) Put(k, std::move(t), std::vector<T>(shape.numel(), v));
        return;
      }
      case 1: {  // FromVector
        const Shape shape = BaseShapes()[Rand(BaseShapes().size())];
        std::vector<T> v(shape.numel());
        for (T& x : v) x = SmallValue(5);
        Log("t" + std::to_string(k) + " = FromVector(" + shape.ToString() + ")");
        Tensor t = FromVector<T>(v, shape);
        if (CheckTensor(t, "FromVector")) Put(k, std::move(t), std::move(v));
        return;
      }
      case 2: {  // out-of-place Add
        const int j = Partner(i);
        if (j < 0) return Fill(i);
        std::vector<T> r = Ref(slots_[i]);
        const std::vector<T> b = Ref(slots_[j]);
        for (size_t x = 0; x < r.size(); ++x) r[x] += b[x];
        if (!InBound(r)) return Fill(i);
        Log("t" + std::to_string(k) + " = Add(" + Name(i) + ", " + Name(j) + ")");
        Tensor t = ops::Add(slots_[i].t, slots_[j].t.Reshape(slots_[i].shape));
        if (CheckTensor(t, "Add")) Put(k, std::move(t), std::move(r), ErrorOf(i, j));
        return;
      }
      case 3: {  // AddInplace (x += x allowed)
        const int j = Partner(i);
        if (j < 0) return Fill(i);
        std::vector<T> r = Ref(slots_[i]);
        const std::vector<T> b = Ref(slots_[j]);
        for (size_t x = 0; x < r.size(); ++x) r[x] += b[x];
        if (!InBound(r)) return Fill(i);
        Log("AddInplace(" + Name(i) + ", " + Name(j) + ")");
        Check(ops::AddInplace(slots_[i].t, slots_[j].t.Reshape(slots_[i].shape)), "AddInplace");
        SetRef(slots_[i], r, ErrorOf(i, j));
        return;
      }
      case 4: {  // MulScalarInplace
        static constexpr int kFactors[] = {-2, -1, 0, 2, 3};
        const int f = kFactors[Rand(5)];
        std::vector<T> r = Ref(slots_[i]);
        for (T& x : r) x *= static_cast<T>(f);
        if (!InBound(r)) return Fill(i);
        Log("MulScalarInplace(" + Name(i) + ", " + std::to_string(f) + ")");
        Check(ops::MulScalarInplace(slots_[i].t, f), "MulScalarInplace");
        SetRef(slots_[i], r);
        return;
      }
      case 5: {  // CopyInto
        const int j = Partner(i);
        if (j < 0) return Fill(i);
        Log("CopyInto(" + Name(i) + ", " + Name(j) + ")");
        Check(ops::CopyInto(slots_[i].t, slots_[j].t.Reshape(slots_[i].shape)), "CopyInto");
        SetOverwritten(slots_[i], Ref(slots_[j]), slots_[j].storage->error);
        return;
      }
      case 6:
        return Fill(i);
      case 7: {  // To(cpu): a copy
        Log("t" + std::to_string(k) + " = " + Name(i) + ".To(cpu)");
        Tensor t = slots_[i].t.To(Device::Cpu());
        if (CheckTensor(t, "To")) Put(k, std::move(t), Ref(slots_[i]), ErrorOf(i, i));
        return;
      }
      case 8: {  // Reshape view
        if (slots_[i].numel() == 0) return;
        const Shape shape = ShapeWithNumel(slots_[i].numel());
        Log("t" + std::to_string(k) + " = " + Name(i) + ".Reshape(" + shape.ToString() + ")");
        Tensor v = slots_[i].t.Reshape(shape);
        if (CheckTensor(v, "Reshape")) PutView(k, std::move(v), slots_[i], slots_[i].offset);
        return;
      }
      case 9: {  // Slice view along dim 0
        const Slot<T>& s = slots_[i];
        if (s.shape.rank() == 0 || s.shape[0] == 0) return;
        const int64_t rows = s.shape[0];
        const int64_t b = static_cast<int64_t>(Rand(rows));
        const int64_t e = b + 1 + static_cast<int64_t>(Rand(rows - b));
        const int64_t row = s.numel() / rows;
        Log("t" + std::to_string(k) + " = " + Name(i) + ".Slice(" + std::to_string(b) + ", " +
            std::to_string(e) + ")");
        Tensor v = s.t.Slice(b, e);
        if (CheckTensor(v, "Slice")) PutView(k, std::move(v), s, s.offset + b * row);
        return;
      }
      case 10:
      case 11:  // drop a handle (the storage lives on while a view of it does)
        Log("drop t" + std::to_string(k));
        slots_[k] = Slot<T>();
        return;
      default:  // a blocking read in the middle of the program
        Log("read " + Name(i));
        if (slots_[i].numel() == 1) {
          absl::StatusOr<T> v = slots_[i].t.template Item<T>();
          if (ExpectFailure(slots_[i], v.status(), "Item")) return;
          if (!v.ok()) return Fail("Item failed: " + v.status().ToString());
          const T want = Ref(slots_[i])[0];
          if (std::memcmp(&*v, &want, sizeof(T)) != 0) {
            Fail("Item mismatch in " + Name(i) + ": got " + std::to_string(*v) + " want " +
                 std::to_string(want));
          }
        } else {
          Compare(static_cast<size_t>(i), "mid-program");
        }
        return;
    }
  }

  void Fill(int i) {
    const T v = SmallValue(4);
    Log("FillInplace(" + Name(i) + ", " + std::to_string(v) + ")");
    Check(ops::FillInplace(slots_[i].t, static_cast<double>(v)), "FillInplace");
    SetOverwritten(slots_[i], std::vector<T>(slots_[i].numel(), v), 0);
  }

  ChoiceSource* choices_;
  const ProgramOptions opts_;
  int64_t next_failure_ = 1;
  std::set<int64_t> unreported_;  // failures no read or Sync has reported yet
  std::vector<Slot<T>> slots_;
  std::vector<std::string> log_;
  std::string failure_;
};

}  // namespace detail

// Runs one random program (float32 for even seeds, int64 for odd ones).
// Returns "" if every read matched the sequential reference bitwise, else a
// description of the first mismatch with the last ops that led to it.
inline std::string RunRandomProgram(uint64_t seed, const ProgramOptions& opts = {}) {
  RngChoices choices(seed);
  std::string failure = (seed % 2 == 0) ? detail::Program<float>(&choices, opts).Run()
                                        : detail::Program<int64_t>(&choices, opts).Run();
  if (failure.empty()) return failure;
  return "seed " + std::to_string(seed) + ": " + failure;
}

// Runs `programs_each` random programs on each of `threads` user threads at
// once (thread t uses seeds seed_base + 1000 * t + p) and returns, per
// thread, its first failure or "".
inline std::vector<std::string> RunRandomProgramsOnThreads(int threads, int programs_each,
                                                           uint64_t seed_base) {
  std::vector<std::string> failures(static_cast<size_t>(threads));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([t, programs_each, seed_base, &failures] {
      for (int p = 0; p < programs_each && failures[t].empty(); ++p) {
        failures[t] = RunRandomProgram(seed_base + 1000 * static_cast<uint64_t>(t) + p);
      }
    });
  }
  for (std::thread& w : workers) w.join();
  return failures;
}

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_RANDOM_PROGRAM_H_
