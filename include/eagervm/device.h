// Devices: where a tensor lives and where its ops run. Everything here may
// be called from any thread; only CudaDeviceCount()'s first call can block.
#ifndef EAGERVM_DEVICE_H_
#define EAGERVM_DEVICE_H_

#include <iosfwd>
#include <string>

#include "eagervm/export.h"

namespace eagervm {

enum class DeviceType { kCPU = 0, kCUDA = 1 };
inline constexpr int kNumDeviceTypes = 2;

// A value type naming one device. Cheap to copy; thread-safe.
class EAGERVM_EXPORT Device {
 public:
  constexpr Device() = default;  // the CPU
  static constexpr Device Cpu() { return Device(DeviceType::kCPU, 0); }
  static constexpr Device Cuda(int index = 0) { return Device(DeviceType::kCUDA, index); }

  constexpr DeviceType type() const { return type_; }
  constexpr int index() const { return index_; }
  constexpr bool is_cpu() const { return type_ == DeviceType::kCPU; }
  std::string ToString() const;  // "cpu", "cuda:0"

  // One 8-byte compare (two ints, no padding; every op compares devices).
  // __builtin_bit_cast: std::bit_cast's builtin, constexpr in C++17 too
  // (GCC 11, Clang 9, MSVC 19.27 and later).
  friend constexpr bool operator==(Device a, Device b) {
    return __builtin_bit_cast(unsigned long long, a) == __builtin_bit_cast(unsigned long long, b);
  }
  friend constexpr bool operator!=(Device a, Device b) { return !(a == b); }

 private:
  constexpr Device(DeviceType type, int index) : type_(type), index_(index) {}
  DeviceType type_ = DeviceType::kCPU;
  int index_ = 0;
};

static_assert(sizeof(Device) == sizeof(unsigned long long), "operator== compares 8 bytes");

EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, Device d);
EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, DeviceType t);

// Number of usable CUDA devices: 0 without the CUDA backend, a driver or a GPU.
// Never fails and never logs. Any thread. The first call asks the CUDA driver
// (which may initialise it: slow, and concurrent first callers wait for it);
// later calls return the same, cached answer.
EAGERVM_EXPORT int CudaDeviceCount();

}  // namespace eagervm

#endif  // EAGERVM_DEVICE_H_
