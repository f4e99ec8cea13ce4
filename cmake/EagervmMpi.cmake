# Distributed collectives (src/distributed/, src/mpi/, src/nccl/, docs/distributed.md).
# EAGERVM_MPI=AUTO builds the MPI backend when find_package(MPI) finds MPI, ON requires it, OFF skips it. Without MPI the distributed API still
# exists: InitDistributed returns Unimplemented and every collective fails
# with FailedPrecondition. NCCL (CUDA tensors) is built when MPI and the CUDA
# backend are, and nccl.h + libnccl are found next to the CUDA toolkit.
# Generates eagervm/distributed_config.h (EAGERVM_HAS_MPI, EAGERVM_HAS_NCCL).
set(EAGERVM_MPI "AUTO" CACHE STRING "Build the MPI (CPU collectives) backend: AUTO, ON or OFF")
set_property(CACHE EAGERVM_MPI PROPERTY STRINGS AUTO ON OFF)
set(EAGERVM_WITH_MPI OFF)
set(EAGERVM_WITH_NCCL OFF)
if(NOT EAGERVM_MPI STREQUAL "OFF")
  # The C API through the CXX component (the project enables no C language);
  # the deprecated MPI C++ bindings stay out.
  set(MPI_CXX_SKIP_MPICXX ON CACHE BOOL "eagervm uses MPI's C API only")
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(EAGERVM_WITH_MPI ON)
    message(STATUS "eagervm: MPI collectives ON (MPI ${MPI_CXX_VERSION}, ${MPIEXEC_EXECUTABLE})")
  elseif(EAGERVM_MPI STREQUAL "ON")
    message(FATAL_ERROR "EAGERVM_MPI=ON but find_package(MPI) found no MPI "
                        "(apt install libopenmpi-dev openmpi-bin, or use EAGERVM_MPI=AUTO/OFF)")
  else()
    message(STATUS "eagervm: MPI collectives OFF (no MPI found; apt install libopenmpi-dev openmpi-bin)")
  endif()
else()
  message(STATUS "eagervm: MPI collectives OFF (EAGERVM_MPI=OFF)")
endif()
if(EAGERVM_WITH_MPI AND EAGERVM_WITH_CUDA)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(EAGERVM_WITH_NCCL ON)
    message(STATUS "eagervm: NCCL collectives ON (${NCCL_LIBRARY})")
  else()
    message(STATUS "eagervm: NCCL collectives OFF (no nccl.h/libnccl next to the CUDA toolkit)")
  endif()
endif()
if(EAGERVM_WITH_MPI)
  set(EAGERVM_HAS_MPI 1)
else()
  set(EAGERVM_HAS_MPI 0)
endif()
if(EAGERVM_WITH_NCCL)
  set(EAGERVM_HAS_NCCL 1)
else()
  set(EAGERVM_HAS_NCCL 0)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/distributed_config.h.in
               ${EAGERVM_GENERATED_INCLUDE_DIR}/eagervm/distributed_config.h @ONLY)

# How the tests, examples and benches launch ranks: oversubscribed (more ranks
# than cores), shared memory and loopback only (vader without the
# single-copy mechanism, which containers often forbid: no CMA/ptrace), ranks
# that yield while they wait (busy-polling ranks starve each other on 2
# cores). Root needs OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM), set per test.
set(EAGERVM_MPIEXEC_FLAGS --oversubscribe --bind-to none --mca btl self,vader
    --mca btl_vader_single_copy_mechanism none --mca mpi_yield_when_idle 1)
set(EAGERVM_MPI_TEST_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_rmaps_base_oversubscribe=1)
# ASan: OpenMPI is not sanitizer-built and leaves allocations behind at
# MPI_Finalize from components it has dlclose()d, so LeakSanitizer cannot even
# name the library to suppress (the frames are "<unknown module>"). The MPI
# tests run with ASan's memory checks and UBSan, without the leak check; every
# other test keeps it (docs/distributed.md).
if(EAGERVM_SANITIZER STREQUAL "asan")
  list(APPEND EAGERVM_MPI_TEST_ENV "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1")
endif()
