# DLPack interop (src/interop/, include/eagervm/dlpack.h, docs/interop.md).
# Built when the DLPack headers are found (Debian: libdlpack-dev, header-only);
# otherwise the interop layer is skipped and the library builds without it.
# Generates eagervm/dlpack_config.h (EAGERVM_HAS_DLPACK 0 or 1) so users can
# ask; only eagervm/dlpack.h includes it, so nothing else rebuilds on a change.
option(EAGERVM_DLPACK "Build DLPack import/export when the DLPack headers are found" ON)
set(EAGERVM_WITH_DLPACK OFF)
if(EAGERVM_DLPACK)
  find_path(DLPACK_INCLUDE_DIR dlpack/dlpack.h)
  if(DLPACK_INCLUDE_DIR)
    set(EAGERVM_WITH_DLPACK ON)
  endif()
endif()
if(EAGERVM_WITH_DLPACK)
  set(EAGERVM_HAS_DLPACK 1)
  message(STATUS "eagervm: DLPack interop ON (${DLPACK_INCLUDE_DIR}/dlpack/dlpack.h)")
else()
  set(EAGERVM_HAS_DLPACK 0)
  message(STATUS "eagervm: DLPack interop OFF (no dlpack/dlpack.h; apt install libdlpack-dev)")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/dlpack_config.h.in
               ${EAGERVM_GENERATED_INCLUDE_DIR}/eagervm/dlpack_config.h @ONLY)
