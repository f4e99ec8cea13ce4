# The library's layers as CMake targets. Each layer (a folder of src/) is an
# OBJECT library; the installed library eagervm is assembled from their
# objects, so find_package/add_subdirectory users still see one target.
#
# Enforcement is by include path. A layer does not get src/ on its include
# path: it gets an include "view" (build/layer_views/<layer>/) holding symlinks
# to only the folders it may include, plus include/ (the public headers). An
# #include of any other layer's header is "No such file" at compile time, and
# so is a transitive one (an allowed header that includes a forbidden one).
#
# The table itself (eagervm_layer rows) and its temporary exceptions live in
# src/CMakeLists.txt. tests/layering_test.cmake proves the views bite.

set(EAGERVM_LAYER_VIEW_ROOT ${PROJECT_BINARY_DIR}/layer_views)

# One row of the layer table: `eagervm_layer(<name> <folder> [DEPS <layer>... | DEPS ALL]
# [HOT] [CUDA] [BACKENDS] [IF <variable>])`. <folder> is relative to src/. DEPS are the layers
# it may include besides itself (ALL: the whole of src/, for the composition
# root). HOT: hot loops, built at -O3 outside Debug. CUDA: a CUDA backend
# layer (CUDA sources, toolkit headers). BACKENDS: may know which backends are
# built (gets EAGERVM_WITH_CUDA); CUDA layers get it too, nobody else.
# IF <variable>: an optional layer, built only when <variable> is true (e.g.
# interop needs the DLPack headers); otherwise its sources may stay unbuilt.
# EXPORTED_ONLY <layer>...: of these DEPS, include only their exported headers
# (gets EAGERVM_EXPORTED_ONLY_<LAYER>; the dependency's other headers include
# a check that fails the compile then, e.g. src/vm/internal_only.h). An
# exported header may include unexported ones (the check lets them through),
# so the view cannot hide them; the check names them instead.
function(eagervm_layer name folder)
  cmake_parse_arguments(PARSE_ARGV 2 arg "HOT;CUDA;BACKENDS" "IF" "DEPS;EXPORTED_ONLY")
  foreach(dep ${arg_EXPORTED_ONLY})
    if(NOT dep IN_LIST arg_DEPS)
      message(FATAL_ERROR "eagervm: layer '${name}': EXPORTED_ONLY ${dep} is not among its DEPS")
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY EAGERVM_LAYER_${name}_EXPORTED_ONLY ${arg_EXPORTED_ONLY})
  set(enabled ON)
  if(arg_IF AND NOT ${arg_IF})
    set(enabled OFF)
  endif()
  set_property(GLOBAL PROPERTY EAGERVM_LAYER_${name}_ENABLED ${enabled})
  set_property(GLOBAL APPEND PROPERTY EAGERVM_LAYERS ${name})
  set_property(GLOBAL PROPERTY EAGERVM_LAYER_${name}_FOLDER ${folder})
  set_property(GLOBAL PROPERTY EAGERVM_LAYER_${name}_DEPS ${arg_DEPS})
  set_property(GLOBAL PROPERTY EAGERVM_LAYER_${name}_HOT ${arg_HOT})
  set_property(GLOBAL PROPERTY EAGERVM_LAYER_${name}_CUDA ${arg_CUDA})
  set_property(GLOBAL PROPERTY EAGERVM_LAYER_${name}_BACKENDS ${arg_BACKENDS})
endfunction()

# The folders (relative to src/) that layer `name` may include, itself first.
# Sets ${out} to "ALL" for the composition root.
function(eagervm_layer_visible name out)
  get_property(folder GLOBAL PROPERTY EAGERVM_LAYER_${name}_FOLDER)
  get_property(deps GLOBAL PROPERTY EAGERVM_LAYER_${name}_DEPS)
  if(NOT folder)
    message(FATAL_ERROR "eagervm: unknown layer '${name}'")
  endif()
  if(deps STREQUAL "ALL")
    set(${out} ALL PARENT_SCOPE)
    return()
  endif()
  set(visible ${folder})
  foreach(dep ${deps})
    get_property(dep_folder GLOBAL PROPERTY EAGERVM_LAYER_${dep}_FOLDER)
    if(NOT dep_folder)
      message(FATAL_ERROR "eagervm: layer '${name}' depends on unknown layer '${dep}'")
    endif()
    list(APPEND visible ${dep_folder})
  endforeach()
  set(${out} ${visible} PARENT_SCOPE)
endfunction()

# (Re)creates the view directory `dir` with one symlink per entry of `paths`
# (folders or files, relative to src/), e.g. device/cpu -> src/device/cpu.
# file(REMOVE_RECURSE) removes symlinks without following them.
function(eagervm_make_view dir)
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  foreach(p ${ARGN})
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/src/${p})
      message(FATAL_ERROR "eagervm: layer view ${dir}: src/${p} does not exist")
    endif()
    # Never create anything through a symlink (that would write into src/):
    # "device/cpu" after "device" is already visible through "device".
    set(covered OFF)
    set(prefix "")
    string(REPLACE "/" ";" parts "${p}")
    foreach(part ${parts})
      string(APPEND prefix "${part}")
      if(IS_SYMLINK ${dir}/${prefix})
        set(covered ON)
        break()
      endif()
      string(APPEND prefix "/")
    endforeach()
    if(covered)
      continue()
    endif()
    get_filename_component(parent ${dir}/${p} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${p} ${dir}/${p} SYMBOLIC)
  endforeach()
endfunction()

# The include directory a target of layer `name` compiles with, extended by
# `extra` paths (relative to src/) for an exception; created on first use.
function(eagervm_layer_view_dir name out)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "TAG" "EXTRA")
  eagervm_layer_visible(${name} visible)
  if(visible STREQUAL "ALL")
    set(${out} ${PROJECT_SOURCE_DIR}/src PARENT_SCOPE)
    return()
  endif()
  if(arg_TAG)
    set(dir ${EAGERVM_LAYER_VIEW_ROOT}/exceptions/${arg_TAG})
  else()
    set(dir ${EAGERVM_LAYER_VIEW_ROOT}/${name})
  endif()
  get_property(made GLOBAL PROPERTY EAGERVM_VIEW_MADE_${dir})
  if(NOT made)
    eagervm_make_view(${dir} ${visible} ${arg_EXTRA})
    set_property(GLOBAL PROPERTY EAGERVM_VIEW_MADE_${dir} ON)
  endif()
  set(${out} ${dir} PARENT_SCOPE)
endfunction()

# The compile settings every object library of layer `layer` gets (the library
# build's settings: one place, not one copy per layer).
function(eagervm_layer_settings target layer view_dir)
  set_target_properties(${target} PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target} PRIVATE
    ${PROJECT_SOURCE_DIR}/include ${EAGERVM_GENERATED_INCLUDE_DIR} ${view_dir})
  # Usage requirements (include paths, definitions) only: eagervm itself links.
  target_link_libraries(${target} PRIVATE absl::status absl::statusor absl::span
    absl::flat_hash_map absl::strings absl::str_format fmt::fmt Threads::Threads)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
  target_compile_definitions(${target} PRIVATE EAGERVM_BUILDING_LIBRARY)
  if(NOT BUILD_SHARED_LIBS)
    target_compile_definitions(${target} PRIVATE EAGERVM_STATIC_DEFINE)
  endif()
  get_property(hot GLOBAL PROPERTY EAGERVM_LAYER_${layer}_HOT)
  get_property(cuda GLOBAL PROPERTY EAGERVM_LAYER_${layer}_CUDA)
  get_property(backends GLOBAL PROPERTY EAGERVM_LAYER_${layer}_BACKENDS)
  get_property(exported_only GLOBAL PROPERTY EAGERVM_LAYER_${layer}_EXPORTED_ONLY)
  foreach(dep ${exported_only})
    string(TOUPPER ${dep} dep_upper)
    target_compile_definitions(${target} PRIVATE EAGERVM_EXPORTED_ONLY_${dep_upper}=1)
  endforeach()
  if(hot)
    # CPU kernels are hot loops: at -O2, GCC 12's "very cheap" vectoriser cost
    # model skips every loop that needs an epilogue or an alias check (all of
    # ours); -O3 vectorises them (a 1K-float add: ~2x faster, measured).
    target_compile_options(${target} PRIVATE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<CONFIG:Debug>>>:-O3>)
  endif()
  if(cuda AND EAGERVM_WITH_CUDA)
    target_link_libraries(${target} PRIVATE CUDA::cudart CUDA::cublas)
    set_target_properties(${target} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  endif()
  if(EAGERVM_WITH_CUDA AND (cuda OR backends))
    target_compile_definitions(${target} PRIVATE EAGERVM_WITH_CUDA=1)
  endif()
  # The composition root makes the collective transports this build has.
  if(backends AND EAGERVM_WITH_MPI)
    target_compile_definitions(${target} PRIVATE EAGERVM_WITH_MPI=1)
  endif()
  if(backends AND EAGERVM_WITH_NCCL)
    target_compile_definitions(${target} PRIVATE EAGERVM_WITH_NCCL=1)
  endif()
endfunction()

# A C/C++/CUDA source's path relative to src/, and a target-name-safe tag for it.
function(_eagervm_rel_src src out_rel out_tag)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/src ${src})
  string(MAKE_C_IDENTIFIER ${rel} tag)
  set(${out_rel} ${rel} PARENT_SCOPE)
  set(${out_tag} ${tag} PARENT_SCOPE)
endfunction()

# Adds the object library eagervm_<layer> from `SOURCES` (absolute paths) and
# appends it to the global EAGERVM_LAYER_OBJECT_TARGETS. Sources named in
# EAGERVM_LAYER_EXCEPTIONS (see src/CMakeLists.txt) go to their own object
# library with a wider view, and get a "stale" probe: the same file with the
# plain view, preprocess only, which tests/layering_test.cmake expects to fail.
function(eagervm_add_layer layer)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES")
  eagervm_layer_view_dir(${layer} view)
  get_property(cuda GLOBAL PROPERTY EAGERVM_LAYER_${layer}_CUDA)
  get_property(backends GLOBAL PROPERTY EAGERVM_LAYER_${layer}_BACKENDS)
  set(regular "")
  foreach(src ${arg_SOURCES})
    _eagervm_rel_src(${src} rel tag)
    set_property(GLOBAL APPEND PROPERTY EAGERVM_LAYER_ALL_SOURCES ${rel})
    set_property(GLOBAL PROPERTY EAGERVM_LAYER_OF_FILE_${rel} ${layer})
    if(cuda OR backends)
      get_filename_component(dir ${rel} DIRECTORY)
      set_property(GLOBAL APPEND PROPERTY EAGERVM_BACKEND_SOURCE_DIRS ${dir})
    endif()
    set(extra "")
    foreach(entry ${EAGERVM_LAYER_EXCEPTIONS})
      if(NOT entry MATCHES "^ *([^ :]+) *: *(.*[^ ]) *$")
        message(FATAL_ERROR "eagervm: bad EAGERVM_LAYER_EXCEPTIONS entry '${entry}'")
      endif()
      if(CMAKE_MATCH_1 STREQUAL rel)
        separate_arguments(extra UNIX_COMMAND "${CMAKE_MATCH_2}")
        set_property(GLOBAL APPEND PROPERTY EAGERVM_LAYER_EXCEPTIONS_USED ${rel})
      endif()
    endforeach()
    if(NOT extra)
      list(APPEND regular ${src})
      continue()
    endif()
    eagervm_layer_view_dir(${layer} xview TAG ${tag} EXTRA ${extra})
    add_library(eagervm_${layer}__${tag} OBJECT ${src})
    eagervm_layer_settings(eagervm_${layer}__${tag} ${layer} ${xview})
    set_property(GLOBAL APPEND PROPERTY EAGERVM_LAYER_OBJECT_TARGETS eagervm_${layer}__${tag})
    string(REPLACE ";" "," extra_csv "${extra}")
    set_property(GLOBAL APPEND PROPERTY EAGERVM_LAYER_OBJECT_INFO
                 "eagervm_${layer}__${tag}|${layer}|${extra_csv}")
    if(src MATCHES "\\.cc$")
      add_library(eagervm_layer_stale__${tag} OBJECT EXCLUDE_FROM_ALL ${src})
      eagervm_layer_settings(eagervm_layer_stale__${tag} ${layer} ${view})
      target_compile_options(eagervm_layer_stale__${tag} PRIVATE -E)
      set_property(GLOBAL APPEND PROPERTY EAGERVM_LAYER_STALE_PROBES
                   "eagervm_layer_stale__${tag}|${rel}")
    endif()
  endforeach()
  if(regular)
    add_library(eagervm_${layer} OBJECT ${regular})
    eagervm_layer_settings(eagervm_${layer} ${layer} ${view})
    set_property(GLOBAL APPEND PROPERTY EAGERVM_LAYER_OBJECT_TARGETS eagervm_${layer})
    set_property(GLOBAL APPEND PROPERTY EAGERVM_LAYER_OBJECT_INFO "eagervm_${layer}|${layer}|")
  endif()
endfunction()

# Fails the configure step when an exception names a file that does not exist
# (a typo, or a file that was moved) or, for a layer this build compiles, a
# file no layer picked up: stale entries must not linger.
function(_eagervm_check_layer_exceptions)
  get_property(used GLOBAL PROPERTY EAGERVM_LAYER_EXCEPTIONS_USED)
  foreach(entry ${EAGERVM_LAYER_EXCEPTIONS} ${EAGERVM_LINK_EXCEPTIONS})
    string(REGEX MATCH "^ *([^ :]+)" _ "${entry}")
    set(file ${CMAKE_MATCH_1})
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/src/${file})
      message(FATAL_ERROR "eagervm: EAGERVM_LAYER_EXCEPTIONS names src/${file}, which does not "
                          "exist: remove the entry")
    endif()
    set(compiled ON)
    if(NOT EAGERVM_WITH_CUDA AND file MATCHES "^(device|kernels)/cuda/")
      set(compiled OFF)
    endif()
    if(compiled AND NOT file IN_LIST used AND NOT "${entry}" IN_LIST EAGERVM_LINK_EXCEPTIONS)
      message(FATAL_ERROR "eagervm: EAGERVM_LAYER_EXCEPTIONS names src/${file}, which no layer "
                          "compiles: remove the entry")
    endif()
  endforeach()
endfunction()

# Fails the configure step when a source file under src/ belongs to no layer
# (it would silently not be built) or to two. CUDA folders count only in
# builds with the CUDA backend.
function(_eagervm_check_layer_sources)
  get_property(compiled GLOBAL PROPERTY EAGERVM_LAYER_ALL_SOURCES)
  set(seen "")
  foreach(rel ${compiled})
    if(rel IN_LIST seen)
      message(FATAL_ERROR "eagervm: src/${rel} is compiled by two layers")
    endif()
    list(APPEND seen ${rel})
  endforeach()
  file(GLOB_RECURSE all RELATIVE ${PROJECT_SOURCE_DIR}/src CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/src/*.cc ${PROJECT_SOURCE_DIR}/src/*.cu)
  get_property(layers GLOBAL PROPERTY EAGERVM_LAYERS)
  set(disabled_folders "")
  foreach(layer ${layers})
    get_property(enabled GLOBAL PROPERTY EAGERVM_LAYER_${layer}_ENABLED)
    get_property(folder GLOBAL PROPERTY EAGERVM_LAYER_${layer}_FOLDER)
    if(NOT enabled)
      list(APPEND disabled_folders ${folder})
    endif()
  endforeach()
  foreach(rel ${all})
    if(NOT EAGERVM_WITH_CUDA AND rel MATCHES "^(device|kernels)/cuda/")
      continue()
    endif()
    set(skip OFF)
    foreach(folder ${disabled_folders})
      if(rel MATCHES "^${folder}/")
        set(skip ON)
      endif()
    endforeach()
    if(skip)
      continue()
    endif()
    if(NOT rel IN_LIST seen)
      message(FATAL_ERROR "eagervm: src/${rel} belongs to no layer (src/CMakeLists.txt)")
    endif()
  endforeach()
endfunction()

# The layer (by name) that owns `path` (relative to src/): the layer whose
# folder holds it, else the layer that compiles the .cc of the same name
# (src/device/device_copy.h: runtime, which compiles the glue).
function(_eagervm_layer_of_path path out)
  get_property(layers GLOBAL PROPERTY EAGERVM_LAYERS)
  set(best "")
  set(best_len 0)
  foreach(layer ${layers})
    get_property(folder GLOBAL PROPERTY EAGERVM_LAYER_${layer}_FOLDER)
    string(LENGTH "${folder}" len)
    if((path STREQUAL folder OR path MATCHES "^${folder}/") AND len GREATER best_len)
      set(best ${layer})
      set(best_len ${len})
    endif()
  endforeach()
  if(NOT best)
    string(REGEX REPLACE "\\.[^./]*$" ".cc" cc "${path}")
    get_property(best GLOBAL PROPERTY EAGERVM_LAYER_OF_FILE_${cc})
  endif()
  if(NOT best)
    message(FATAL_ERROR "eagervm: src/${path} belongs to no layer")
  endif()
  set(${out} ${best} PARENT_SCOPE)
endfunction()

# Called once, after every layer of src/ is added: checks the exceptions and
# that every source belongs to exactly one layer, and keeps what
# tests/layering_test.cmake needs (EAGERVM_LAYER_EXCEPTIONS,
# EAGERVM_LINK_EXCEPTIONS, EAGERVM_LAYER_HOOKS of the caller's scope).
function(eagervm_finish_layers)
  _eagervm_check_layer_exceptions()
  _eagervm_check_layer_sources()
  set_property(GLOBAL PROPERTY EAGERVM_LINK_EXCEPTIONS_SAVED ${EAGERVM_LINK_EXCEPTIONS})
  set_property(GLOBAL PROPERTY EAGERVM_LAYER_HOOKS_SAVED ${EAGERVM_LAYER_HOOKS})
endfunction()

# A probe for tests/layering_test.cmake: `SOURCE` compiled as layer `LAYER`
# (its view and settings), excluded from `all`. EXPECT_MISSING <header>: the
# compile must fail because <header> is not on the layer's view. EXPECT_OK:
# it must compile (so the test cannot pass because every compile fails).
# EXPECT_ERROR <text>: the compile must fail with an #error that contains
# <text> (an unexported header included by a layer with EXPORTED_ONLY).
function(eagervm_layer_probe name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "EXPECT_OK" "LAYER;SOURCE;EXPECT_MISSING;EXPECT_ERROR" "")
  eagervm_layer_view_dir(${arg_LAYER} view)
  add_library(eagervm_layer_probe__${name} OBJECT EXCLUDE_FROM_ALL ${arg_SOURCE})
  eagervm_layer_settings(eagervm_layer_probe__${name} ${arg_LAYER} ${view})
  if(arg_EXPECT_OK)
    set(expect OK)
  elseif(arg_EXPECT_ERROR)
    set(expect "ERROR:${arg_EXPECT_ERROR}")
  else()
    set(expect ${arg_EXPECT_MISSING})
  endif()
  set_property(GLOBAL APPEND PROPERTY EAGERVM_LAYER_PROBES
               "eagervm_layer_probe__${name}|${arg_LAYER}|${expect}")
endfunction()

# Writes the inputs of tests/layering_test.cmake to `path` (and, generated
# with the object file lists, `path`.objects-<config>.cmake): the probes, the stale-
# exception probes, where EAGERVM_WITH_CUDA may appear, and for the link
# check each layer's allowed layers, each object library's objects, the hooks
# and the link exceptions.
function(eagervm_write_layering_config path)
  get_property(probes GLOBAL PROPERTY EAGERVM_LAYER_PROBES)
  get_property(stale GLOBAL PROPERTY EAGERVM_LAYER_STALE_PROBES)
  get_property(layers GLOBAL PROPERTY EAGERVM_LAYERS)
  get_property(dirs GLOBAL PROPERTY EAGERVM_BACKEND_SOURCE_DIRS)
  get_property(infos GLOBAL PROPERTY EAGERVM_LAYER_OBJECT_INFO)
  get_property(hooks GLOBAL PROPERTY EAGERVM_LAYER_HOOKS_SAVED)
  get_property(link_exceptions GLOBAL PROPERTY EAGERVM_LINK_EXCEPTIONS_SAVED)
  set(folders "")
  set(text "# Generated by eagervm_write_layering_config (cmake/EagervmLayers.cmake).\n")
  foreach(layer ${layers})
    get_property(cuda GLOBAL PROPERTY EAGERVM_LAYER_${layer}_CUDA)
    get_property(backends GLOBAL PROPERTY EAGERVM_LAYER_${layer}_BACKENDS)
    get_property(folder GLOBAL PROPERTY EAGERVM_LAYER_${layer}_FOLDER)
    get_property(deps GLOBAL PROPERTY EAGERVM_LAYER_${layer}_DEPS)
    if(cuda OR backends)
      list(APPEND folders ${folder})
    endif()
    string(APPEND text "set(DEPS_${layer} \"${layer};${deps}\")\n")
  endforeach()
  # Object libraries: "target|layer|extra layers (comma-separated)".
  set(objects "")
  set(objects_text "")
  foreach(info ${infos})
    string(REPLACE "|" ";" f "${info}")
    list(GET f 0 target)
    list(GET f 1 layer)
    list(GET f 2 extra_paths)
    string(REPLACE "," ";" extra_paths "${extra_paths}")
    set(extra_layers "")
    foreach(p ${extra_paths})
      _eagervm_layer_of_path(${p} l)
      list(APPEND extra_layers ${l})
    endforeach()
    string(REPLACE ";" "," extra_layers "${extra_layers}")
    list(APPEND objects "${target}|${layer}|${extra_layers}")
    string(APPEND objects_text "set(OBJECTS_${target} \"$<TARGET_OBJECTS:${target}>\")\n")
  endforeach()
  # Link exceptions: "file|extra layers (comma-separated)".
  set(links "")
  foreach(entry ${link_exceptions})
    string(REGEX MATCH "^ *([^ :]+) *: *(.*[^ ]) *$" _ "${entry}")
    set(file ${CMAKE_MATCH_1})
    separate_arguments(extra UNIX_COMMAND "${CMAKE_MATCH_2}")
    string(REPLACE ";" "," extra "${extra}")
    list(APPEND links "${file}|${extra}")
  endforeach()
  list(REMOVE_DUPLICATES dirs)
  string(APPEND text
       "set(LAYERS \"${layers}\")\n"
       "set(PROBES \"${probes}\")\n"
       "set(STALE_PROBES \"${stale}\")\n"
       "set(BACKEND_FOLDERS \"${folders}\")\n"
       "set(BACKEND_DIRS \"${dirs}\")\n"
       "set(OBJECT_LIBRARIES \"${objects}\")\n"
       "set(HOOKS \"${hooks}\")\n"
       "set(LINK_EXCEPTIONS \"${links}\")\n")
  file(WRITE ${path} "${text}")
  # One per configuration (multi-config generators): the test passes its own.
  file(GENERATE OUTPUT ${path}.objects-$<CONFIG>.cmake CONTENT "${objects_text}")
endfunction()
