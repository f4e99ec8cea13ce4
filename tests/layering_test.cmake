# ctest case layering_test: proves that the layer table (src/CMakeLists.txt)
# is enforced by the compiler. Run with cmake -P and:
#   BUILD_DIR   the configured build tree
#   SOURCE_DIR  the source tree
#   OBJECTS     the generated object lists (OBJECTS_<target>) of this config
#   CMAKE_NM    nm
#   BUILD_CONFIG  the configuration ctest runs (multi-config generators)
#   CONFIG      the generated probe list (tests/CMakeLists.txt writes it):
#     PROBES        "target|layer|header": compiling target (a file of
#                   tests/layering/ built as layer) must fail because header
#                   is not on the layer's include view; "target|layer|OK":
#                   it must compile (so the test cannot pass vacuously).
#     STALE_PROBES  "target|file": file (a TEMPORARY exception of
#                   EAGERVM_LAYER_EXCEPTIONS) preprocessed with its layer's
#                   plain view; must fail, or the exception is no longer needed.
#     BACKEND_FOLDERS / BACKEND_DIRS  where EAGERVM_WITH_CUDA may appear.
#     LAYERS, DEPS_<layer>, OBJECT_LIBRARIES ("target|layer|extra layers"),
#     HOOKS, LINK_EXCEPTIONS ("file|layers")  the link check.
cmake_minimum_required(VERSION 3.22)
include(${CONFIG})
include(${OBJECTS})

set(failures "")
function(fail msg)
  set(failures "${failures}\n  - ${msg}" PARENT_SCOPE)
endfunction()

function(build target out_rc out_log)
  set(config_args "")
  if(BUILD_CONFIG)
    set(config_args --config ${BUILD_CONFIG})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target} ${config_args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_log} "${out}${err}" PARENT_SCOPE)
endfunction()

# "fatal error: h: No such file or directory" (GCC, nvcc's host compiler) or
# "fatal error: 'h' file not found" (Clang).
function(missing_regex header out)
  string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" h "${header}")
  set(${out} "${h}'?:? (No such file or directory|file not found)" PARENT_SCOPE)
endfunction()

set(n_missing 0)
set(n_ok 0)
foreach(p ${PROBES})
  string(REPLACE "|" ";" f "${p}")
  list(GET f 0 target)
  list(GET f 1 layer)
  list(GET f 2 expect)
  build(${target} rc log)
  if(expect STREQUAL "OK")
    if(NOT rc EQUAL 0)
      fail("${target}: allowed includes of layer ${layer} must compile, but:\n${log}")
    else()
      math(EXPR n_ok "${n_ok} + 1")
      message(STATUS "ok: ${target} compiles as ${layer}")
    endif()
    continue()
  endif()
  missing_regex("${expect}" re)
  if(rc EQUAL 0)
    fail("${target}: layer ${layer} compiled an include of ${expect}; the layer view must reject it")
  elseif(NOT log MATCHES "${re}")
    fail("${target}: failed, but not because ${expect} is off the view of ${layer}:\n${log}")
  else()
    math(EXPR n_missing "${n_missing} + 1")
    message(STATUS "ok: ${target} is rejected (${expect} is not visible to ${layer})")
  endif()
endforeach()
if(n_ok EQUAL 0 OR n_missing EQUAL 0)
  fail("need at least one rejected and one allowed probe (got ${n_missing} and ${n_ok})")
endif()

# Every TEMPORARY exception must still be needed.
foreach(p ${STALE_PROBES})
  string(REPLACE "|" ";" f "${p}")
  list(GET f 0 target)
  list(GET f 1 file)
  build(${target} rc log)
  if(rc EQUAL 0)
    fail("src/${file} now compiles within its layer: remove its line from EAGERVM_LAYER_EXCEPTIONS")
  elseif(NOT log MATCHES "(No such file or directory|file not found)")
    fail("src/${file}: the check of its exception failed for another reason:\n${log}")
  else()
    message(STATUS "ok: src/${file} still needs its exception (TEMPORARY)")
  endif()
endforeach()

# What the include views cannot see: a relative include that climbs out of a
# folder, and a lower layer that asks which backends are built.
file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR}/src
     ${SOURCE_DIR}/src/*.h ${SOURCE_DIR}/src/*.cc ${SOURCE_DIR}/src/*.cu ${SOURCE_DIR}/src/*.cuh)
foreach(rel ${sources})
  file(STRINGS ${SOURCE_DIR}/src/${rel} climbs REGEX "^[ \t]*#[ \t]*include[ \t]*\"(\\.\\.|src)/")
  if(climbs)
    fail("src/${rel}: includes by a relative path out of its folder: ${climbs}")
  endif()
  file(STRINGS ${SOURCE_DIR}/src/${rel} cuda_checks REGEX "EAGERVM_WITH_CUDA")
  if(NOT cuda_checks)
    continue()
  endif()
  get_filename_component(dir ${rel} DIRECTORY)
  set(allowed OFF)
  if(dir IN_LIST BACKEND_DIRS)
    set(allowed ON)
  endif()
  foreach(folder ${BACKEND_FOLDERS})
    if(dir STREQUAL folder OR dir MATCHES "^${folder}/")
      set(allowed ON)
    endif()
  endforeach()
  if(NOT allowed)
    fail("src/${rel}: tests EAGERVM_WITH_CUDA, which only the composition root and the CUDA \
layers may (it is not even defined for this layer)")
  endif()
endforeach()

# The same arrows at link level, which no include view sees: an `extern`
# declaration of another layer's function, or a public function (declared in
# include/eagervm/) defined by a layer its caller may not depend on. Every
# undefined symbol of a layer's objects that another layer defines strongly
# must come from an allowed layer, from the file's exception, or be a hook
# that the composition root defines for it (HOOKS).
set(nm_tool nm)
if(CMAKE_NM)
  set(nm_tool ${CMAKE_NM})
endif()
foreach(info ${OBJECT_LIBRARIES})
  string(REPLACE "|" ";" f "${info}")
  list(GET f 0 target)
  list(GET f 1 layer)
  foreach(o ${OBJECTS_${target}})
    execute_process(COMMAND ${nm_tool} -g -P --defined-only ${o}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
    if(NOT rc EQUAL 0)
      fail("nm failed on ${o} (build the library before running the test)")
      continue()
    endif()
    string(REGEX MATCHALL "[^\n]+" lines "${out}")
    foreach(line ${lines})
      # POSIX format: "name type value size"; strong definitions only (weak
      # ones are the inline functions every includer carries).
      if(line MATCHES "^([^ ]+) [TDBRui] ")
        set("DEF_${CMAKE_MATCH_1}" ${layer})
      endif()
    endforeach()
  endforeach()
endforeach()

set(link_edges "")  # "file|layer": which object files reach which layers
set(n_objects 0)
foreach(info ${OBJECT_LIBRARIES})
  string(REPLACE "|" ";" f "${info}")
  list(GET f 0 target)
  list(GET f 1 layer)
  list(GET f 2 extra)
  string(REPLACE "," ";" extra "${extra}")
  set(allowed ${DEPS_${layer}} ${extra})
  if("ALL" IN_LIST allowed)
    continue()
  endif()
  foreach(o ${OBJECTS_${target}})
    math(EXPR n_objects "${n_objects} + 1")
    execute_process(COMMAND ${nm_tool} -u -P ${o} OUTPUT_VARIABLE out ERROR_QUIET)
    string(REGEX MATCHALL "[^\n]+" lines "${out}")
    foreach(line ${lines})
      if(NOT line MATCHES "^([^ ]+) U")
        continue()
      endif()
      set(sym ${CMAKE_MATCH_1})
      if(NOT DEFINED "DEF_${sym}")
        continue()  # a system or third-party library
      endif()
      set(def ${DEF_${sym}})
      list(APPEND link_edges "${o}|${def}")
      if(def IN_LIST allowed)
        continue()
      endif()
      execute_process(COMMAND c++filt ${sym} OUTPUT_VARIABLE pretty OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(def STREQUAL "runtime" AND pretty IN_LIST HOOKS)
        continue()
      endif()
      # A link exception of this very file?
      set(excepted OFF)
      foreach(le ${LINK_EXCEPTIONS})
        string(REPLACE "|" ";" lf "${le}")
        list(GET lf 0 lfile)
        list(GET lf 1 llayers)
        string(REPLACE "," ";" llayers "${llayers}")
        if(o MATCHES "/${lfile}\\.o$" AND def IN_LIST llayers)
          set(excepted ON)
        endif()
      endforeach()
      if(NOT excepted)
        get_filename_component(oname ${o} NAME)
        fail("${layer} (${oname}) references ${pretty}, defined by ${def}: ${layer} may \
not depend on ${def}")
      endif()
    endforeach()
  endforeach()
endforeach()
if(n_objects EQUAL 0)
  fail("the link check found no object files of the layers")
endif()
foreach(le ${LINK_EXCEPTIONS})
  string(REPLACE "|" ";" lf "${le}")
  list(GET lf 0 lfile)
  list(GET lf 1 llayers)
  string(REPLACE "," ";" llayers "${llayers}")
  set(needed OFF)
  foreach(edge ${link_edges})
    foreach(l ${llayers})
      if(edge MATCHES "/${lfile}\\.o\\|${l}$")
        set(needed ON)
      endif()
    endforeach()
  endforeach()
  if(needed)
    message(STATUS "ok: src/${lfile} still needs its link exception (TEMPORARY)")
  else()
    fail("src/${lfile} no longer references ${llayers}: remove its line from EAGERVM_LINK_EXCEPTIONS")
  endif()
endforeach()

if(failures)
  message(FATAL_ERROR "layering_test failed:${failures}")
endif()
list(LENGTH STALE_PROBES n_stale)
list(LENGTH LINK_EXCEPTIONS n_link)
message(STATUS "layering_test: ${n_missing} forbidden includes rejected, ${n_ok} allowed ones "
               "compiled, ${n_objects} objects link only along the arrows, ${n_stale} include "
               "and ${n_link} link exception(s) (TEMPORARY) still needed")
