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
file(REMOVE_RECURSE ${WORK_DIR})
