# libFuzzer targets (fuzz/, docs/fuzzing.md), off by default. EAGERVM_FUZZ=ON
# needs a compiler that links -fsanitize=fuzzer (clang); without one the
# targets are skipped with a warning. When on, every target defined after
# this file is included (the library above all) is compiled with
# -fsanitize=fuzzer-no-link, so the fuzzers see the library's coverage.
# Combine with EAGERVM_SANITIZER=asan for ASan+UBSan (scripts/test.sh fuzz).
option(EAGERVM_FUZZ "Build the libFuzzer targets in fuzz/ (needs clang)" OFF)
set(EAGERVM_WITH_FUZZ OFF)
if(EAGERVM_FUZZ)
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
  check_cxx_source_compiles([[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }]]
    EAGERVM_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(EAGERVM_HAVE_LIBFUZZER)
    set(EAGERVM_WITH_FUZZ ON)
    add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>")
  else()
    message(WARNING "eagervm: EAGERVM_FUZZ=ON but ${CMAKE_CXX_COMPILER_ID} cannot link "
                    "-fsanitize=fuzzer (use clang++); the fuzz targets are skipped")
  endif()
endif()
