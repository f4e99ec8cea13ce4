# ctest case install_consumer: installs the built eagervm into a temporary
# prefix, then configures, builds and runs examples/consumer against it with
# find_package(eagervm CONFIG REQUIRED). Run with cmake -P and:
#   BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER BUILD_TYPE CXX_FLAGS
cmake_minimum_required(VERSION 3.22)

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${step} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/eagervm/eagervm.h include/eagervm/version.h include/eagervm/trace.h
          include/eagervm/log.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install_consumer: ${f} was not installed")
  endif()
endforeach()
file(GLOB_RECURSE config ${prefix}/*/eagervmConfig.cmake)
if(NOT config)
  message(FATAL_ERROR "install_consumer: no eagervmConfig.cmake under ${prefix}")
endif()

run("configure consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/consumer -B ${WORK_DIR}/build
    -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${CXX_FLAGS}")
run("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build -j 2)
run("run consumer" ${WORK_DIR}/build/consumer)
if(NOT last_output MATCHES "sum = 14")
  message(FATAL_ERROR "install_consumer: unexpected output:\n${last_output}")
endif()
message(STATUS "install_consumer: ${last_output}")

# The runtime's internals are out of a user's reach: each probe uses one
# through the installed headers and must fail to compile, for that reason.
set(probe_dir ${WORK_DIR}/probe)
file(WRITE ${probe_dir}/CMakeLists.txt "cmake_minimum_required(VERSION 3.22)
project(eagervm_probe LANGUAGES CXX)
find_package(eagervm CONFIG REQUIRED)
add_library(probe OBJECT probe.cc)
target_compile_features(probe PRIVATE cxx_std_17)
target_link_libraries(probe PRIVATE eagervm::eagervm)
")
file(WRITE ${probe_dir}/probe.cc "")
run("configure probe" ${CMAKE_COMMAND} -S ${probe_dir} -B ${probe_dir}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
set(probe_ok "eagervm::Tensor t = eagervm::Zeros({2}, eagervm::DType::kFloat32); (void)t.numel();")
set(probe_impl "eagervm::Tensor t; (void)t.impl();")
set(probe_ctor "std::shared_ptr<eagervm::internal::TensorImpl> p; eagervm::Tensor t(p);")
set(probe_from_host
    "float x = 1; (void)eagervm::Tensor::FromHostData(&x, 4, {1}, eagervm::DType::kFloat32, {});")
set(probe_internal_from_host
    "float x = 1; (void)eagervm::internal::FromHostData(&x, 4, {1}, eagervm::DType::kFloat32, {});")
foreach(probe ok impl ctor from_host internal_from_host)
  file(WRITE ${probe_dir}/probe.cc "#include <memory>\n#include \"eagervm/eagervm.h\"\nvoid Probe() { ${probe_${probe}} }\n")
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${probe_dir}/build RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(probe STREQUAL "ok")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "install_consumer: the control probe failed to build:\n${out}\n${err}")
    endif()
  elseif(rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: probe '${probe}' compiled: `${probe_${probe}}` "
                        "reaches a runtime internal through the installed headers")
  elseif(NOT "${out}${err}" MATCHES "private|not a member")
    message(FATAL_ERROR "install_consumer: probe '${probe}' failed for another reason:\n${out}\n${err}")
  endif()
endforeach()
message(STATUS "install_consumer: internals unreachable (Tensor::impl, its TensorImpl "
               "constructor, FromHostData)")
file(REMOVE_RECURSE ${WORK_DIR})
