# Applies EAGERVM_SANITIZER to every target defined after this file is included.
if(EAGERVM_SANITIZER STREQUAL "asan")
  # C++ only: nvcc rejects -fsanitize (the few host lines in .cu files go uninstrumented).
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined;-fno-omit-frame-pointer;-fno-sanitize-recover=undefined>")
  add_link_options(-fsanitize=address,undefined)
elseif(EAGERVM_SANITIZER STREQUAL "tsan")
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=thread;-fno-omit-frame-pointer>")
  add_link_options(-fsanitize=thread)
elseif(NOT EAGERVM_SANITIZER STREQUAL "")
  message(FATAL_ERROR "EAGERVM_SANITIZER must be '', asan or tsan (got '${EAGERVM_SANITIZER}')")
endif()
